"""The worker's math and behaviour on CPU, with the `tiny` random model (no weights needed):
the clipped loss against hand-computed values, the batch checks, tool-call parsing, an update
that moves the policy the way its advantages say, and a checkpoint that restores it exactly.

Run: ``python -m unittest discover -s trainer/worker/tests`` in the worker's venv
(``trainer/setup.sh``); ``tests/tests/worker.rs`` runs it under ``cargo test``.
"""

import json
import math
import tempfile
import threading
import unittest
from pathlib import Path

import torch
from transformers.utils import logging as transformers_logging

from agentbench_worker import chat, generate, grammar, policy, ppo
from agentbench_worker.prefix import PrefixCache
from agentbench_worker.server import NotFound, Worker

transformers_logging.disable_progress_bar()


def tensor(values):
    return torch.tensor(values, dtype=torch.float32)


class ClippedLoss(unittest.TestCase):
    def test_matches_hand_computed_values(self):
        new = tensor([0.0, math.log(1.5), math.log(0.5)])
        old = tensor([0.0, 0.0, 0.0])
        advantages = tensor([9.0, 1.0, -1.0])  # token 0 is masked out: its 9 counts for nothing
        mask = tensor([0, 1, 1])
        parts = ppo.clipped_loss(new, old, advantages, mask, clip=0.2)
        # Token 1: r = 1.5, A = 1: min(1.5, 1.2) = 1.2. Token 2: r = 0.5, A = -1:
        # min(-0.5, -0.8) = -0.8. The loss is minus their mean: -(1.2 - 0.8) / 2.
        self.assertAlmostEqual(float(parts["pg_loss"]), -0.2, places=6)
        self.assertAlmostEqual(float(parts["loss"]), -0.2, places=6)
        self.assertAlmostEqual(float(parts["clip_fraction"]), 1.0)
        # k3 of KL(old || new): (r - 1) - log r, averaged.
        expected = ((0.5 - math.log(1.5)) + (-0.5 - math.log(0.5))) / 2
        self.assertAlmostEqual(float(parts["approx_kl"]), expected, places=6)

        # A reference at the old policy adds kl_coef times k3 of KL(new || reference):
        # exp(ref - new) - (ref - new) - 1, averaged.
        with_kl = ppo.clipped_loss(new, old, advantages, mask, clip=0.2, reference=old, kl_coef=0.5)
        kl = ((1 / 1.5 + math.log(1.5) - 1) + (2 - math.log(2) - 1)) / 2
        self.assertAlmostEqual(float(with_kl["kl"]), kl, places=6)
        self.assertAlmostEqual(float(with_kl["loss"]), -0.2 + 0.5 * kl, places=6)

    def test_inside_the_clip_range_it_is_the_plain_policy_gradient(self):
        new = tensor([0.0, 0.1]).requires_grad_()
        parts = ppo.clipped_loss(new, tensor([0.0, 0.0]), tensor([0.0, 2.0]), tensor([0, 1]), clip=0.2)
        parts["loss"].backward()
        # d/dnew of -(exp(new - old) * A) at new = 0.1: -exp(0.1) * 2.
        self.assertAlmostEqual(float(new.grad[1]), -math.exp(0.1) * 2, places=5)
        self.assertEqual(float(new.grad[0]), 0.0)
        self.assertEqual(float(parts["clip_fraction"]), 0.0)

    def test_the_mean_is_over_the_whole_batchs_tokens(self):
        one = ppo.clipped_loss(tensor([0.0, 0.0]), tensor([0.0, 0.0]), tensor([0.0, 1.0]),
                               tensor([0, 1]), clip=0.2, tokens=4.0)
        self.assertAlmostEqual(float(one["pg_loss"]), -0.25)


class Batches(unittest.TestCase):
    def sample(self, **change):
        sample = {"token_ids": [1, 2, 3], "loss_mask": [0, 1, 1], "advantages": [0, 1, 1],
                  "old_logprobs": [0, -1, -1]}
        sample.update(change)
        return sample

    def test_a_well_formed_batch_parses(self):
        [sample] = ppo.parse_samples([self.sample()])
        self.assertEqual(sample.loss_mask, [0, 1, 1])

    def test_malformed_batches_are_refused_with_the_reason(self):
        cases = [
            (None, "non-empty array"),
            ([], "non-empty array"),
            ([self.sample(advantages=[0, 1])], "one entry per token"),
            ([self.sample(loss_mask=[1, 1, 1])], "0 on token 0"),
            ([self.sample(loss_mask=[0, 2, 1])], "0 or 1"),
            ([self.sample(loss_mask=[0, 0, 0])], "no token is trained on"),
            ([{"token_ids": [1, 2]}], "sample 0"),
        ]
        for raw, reason in cases:
            with self.subTest(raw=raw), self.assertRaises(ppo.BadBatch) as caught:
                ppo.parse_samples(raw)
            self.assertIn(reason, str(caught.exception))


class Replies(unittest.TestCase):
    def test_a_tool_call_is_parsed_and_the_rest_is_the_content(self):
        text = 'Reading it.<tool_call>{"name": "read_file", "arguments": {"path": "/a"}}</tool_call>'
        content, calls = chat.parse_reply(text)
        self.assertEqual(content, "Reading it.")
        self.assertEqual(calls[0]["function"]["name"], "read_file")
        self.assertEqual(json.loads(calls[0]["function"]["arguments"]), {"path": "/a"})

    def test_a_malformed_call_stays_text(self):
        text = "<tool_call>{not json}</tool_call>"
        self.assertEqual(chat.parse_reply(text), (text, []))
        self.assertEqual(chat.parse_reply("plain"), ("plain", []))

    def test_tools_are_listed_as_signatures_with_their_descriptions(self):
        tools = [{"type": "function", "function": {
            "name": "fill_form",
            "description": "Type values into a form.",
            "parameters": {
                "type": "object",
                "additionalProperties": False,
                "required": ["fields", "form"],
                "properties": {
                    "fields": {"type": "array", "description": "The fields.", "items": {
                        "type": "object", "required": ["name"],
                        "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}},
                    "form": {"type": "string", "maxLength": 200, "description": "The form's id."},
                    "mode": {"enum": ["draft", "send", None], "default": None},
                    "limit": {"type": ["integer", "null"], "minimum": 1},
                },
            }}}, {"type": "function", "function": {"name": "now"}}]
        self.assertEqual(chat.listing(tools), "\n".join([
            'fill_form(fields: array of {name: string, value?: string}, form: string, '
            'mode?: "draft"|"send", limit?: integer): Type values into a form.',
            "  fields: The fields.",
            "  form: The form's id.",
            "now():",
        ]))
        for bad in ([{"name": "x"}], "x", [{"type": "function", "function": {"name": 3}}]):
            with self.assertRaises(chat.BadRequest):
                chat.listing(bad)


def tiny_worker(checkpoints: Path, lr: float = 1e-2, lora: int = 0) -> Worker:
    device = torch.device("cpu")
    return Worker(policy.load("tiny", device, torch.float32, 0, None, lora), checkpoints, lr,
                  reference=True)


FORM_TOOLS = [
    {"type": "function", "function": {"name": "fill_form", "parameters": {
        "type": "object", "additionalProperties": False, "required": ["mode", "count"],
        "properties": {"mode": {"enum": ["draft", "send"]}, "count": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "now"}},
]


class ToolGrammar(unittest.TestCase):
    """Tool calls held to the tools' schemas while sampled, with the tiny random model, whose
    own calls would never parse."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.worker = tiny_worker(Path(cls.folder.name))

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def complete(self, seed, **change):
        body = {"messages": [{"role": "user", "content": "Fill the form."}], "tools": FORM_TOOLS,
                "tool_choice": "required", "max_tokens": 200, "seed": seed}
        body.update(change)
        return self.worker.complete(body)

    def test_a_required_call_parses_and_fits_its_tools_schema(self):
        names = set()
        for seed in range(6):
            reply = self.complete(seed)
            choice = reply["choices"][0]
            self.assertEqual(choice["finish_reason"], "tool_calls", choice["message"])
            [call] = choice["message"]["tool_calls"]
            name, arguments = call["function"]["name"], json.loads(call["function"]["arguments"])
            names.add(name)
            if name == "fill_form":
                self.assertEqual(set(arguments), {"mode", "count"})
                self.assertIn(arguments["mode"], ["draft", "send"])
                self.assertIsInstance(arguments["count"], int)
            else:
                self.assertEqual(name, "now")
                self.assertIsInstance(arguments, dict)
        self.assertTrue(names <= {"fill_form", "now"})

    def test_a_named_function_is_the_one_called(self):
        for seed in range(3):
            reply = self.complete(seed, tool_choice={"type": "function", "function": {"name": "fill_form"}})
            [call] = reply["choices"][0]["message"]["tool_calls"]
            self.assertEqual(call["function"]["name"], "fill_form")

    def test_the_recorded_log_probabilities_are_the_models_own_not_the_masks(self):
        reply = self.complete(3)
        choice = reply["choices"][0]
        ids = reply["prompt_token_ids"] + choice["token_ids"]
        again = self.worker.logprobs({"sequences": [ids]})["logprobs"][0]
        sampled = [token["logprob"] for token in choice["logprobs"]["content"]]
        for recorded, recomputed in zip(sampled, again[-len(sampled):]):
            self.assertAlmostEqual(recorded, recomputed, places=4)
        # Forced tokens the random model gives little mass: under the mask they would be log 1.
        self.assertLess(min(sampled), -1.0)

    def test_calls_are_held_only_once_opened_and_free_text_is_left_alone(self):
        tokenizer = self.worker.policy.tokenizer
        constraint = self.worker.grammars().constraint(FORM_TOOLS, required=False)
        vocabulary = len(tokenizer)

        def token(text):
            [id_] = tokenizer(text, add_special_tokens=False).input_ids
            return id_

        eos = tokenizer.eos_token_id
        self.assertTrue(constraint.allowed(vocabulary)[eos], "an empty reply may end")
        for id_ in tokenizer('Sure.} <tool_call>{"name": "fill_form", "arguments": {"mode": "',
                             add_special_tokens=False).input_ids:
            self.assertTrue(constraint.allowed(vocabulary)[id_])
            constraint.advance(id_)
        allowed = constraint.allowed(vocabulary)
        self.assertTrue(allowed[token("d")] and allowed[token("s")])
        self.assertFalse(allowed[token("x")] or allowed[eos], "inside a call only its schema goes")

    def test_bad_tool_choices_are_refused_with_the_reason(self):
        cases = [
            ({"tool_choice": "required", "tools": []}, "no `tools`"),
            ({"tool_choice": {"type": "function", "function": {"name": "delete"}}}, "`delete`"),
            ({"tool_choice": "sometimes"}, "must be none, auto"),
        ]
        for change, reason in cases:
            with self.assertRaises(chat.BadRequest) as raised:
                self.complete(0, **change)
            self.assertIn(reason, str(raised.exception))

    def test_auto_holds_calls_only_with_the_flag_or_a_strict_tool(self):
        def held(tools, flag):
            return chat.constraint_of(tools, "auto", self.worker.grammars, flag) is not None

        strict = [{"type": "function", "function": {**FORM_TOOLS[0]["function"], "strict": True}}]
        self.assertFalse(held(FORM_TOOLS, False))
        self.assertTrue(held(FORM_TOOLS, True))
        self.assertTrue(held(strict, False))
        self.assertIsNone(chat.constraint_of([], None, self.worker.grammars, True))
        self.assertIsInstance(grammar.call_schema(FORM_TOOLS)["anyOf"], list)


class Updates(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.worker = self.fresh_worker()

    def fresh_worker(self) -> Worker:
        """A worker as a restarted process would be, over the same checkpoints."""
        return tiny_worker(Path(self.folder.name))

    def tearDown(self):
        self.folder.cleanup()

    def complete(self, seed):
        return self.worker.complete({
            "messages": [{"role": "user", "content": "Say something."}],
            "max_tokens": 12,
            "seed": seed,
        })

    def sample_of(self, reply, advantage):
        prompt = reply["prompt_token_ids"]
        choice = reply["choices"][0]
        completion = choice["token_ids"]
        logprobs = [token["logprob"] for token in choice["logprobs"]["content"]]
        n = len(prompt) + len(completion)
        return {
            "token_ids": prompt + completion,
            "loss_mask": [0] * len(prompt) + [1] * len(completion),
            "advantages": [0.0] * len(prompt) + [advantage] * len(completion),
            "old_logprobs": [0.0] * len(prompt) + logprobs,
        }, n

    def total(self, sample) -> float:
        """The policy's log-probability of the tokens `sample` trains on."""
        logprobs = self.worker.logprobs({"sequences": [sample["token_ids"]]})["logprobs"][0]
        return sum(p for p, m in zip(logprobs, sample["loss_mask"]) if m)

    def test_sampled_log_probabilities_are_the_policys_own(self):
        reply = self.complete(seed=1)
        sample, _ = self.sample_of(reply, 1.0)
        again = self.worker.logprobs({"sequences": [sample["token_ids"]]})["logprobs"][0]
        masked = [p for p, m in zip(again, sample["loss_mask"]) if m]
        for sampled, recomputed in zip(sample["old_logprobs"][-len(masked):], masked):
            self.assertAlmostEqual(sampled, recomputed, places=4)
        # The same seed samples the same reply.
        self.assertEqual(self.complete(seed=1)["choices"][0]["token_ids"],
                         reply["choices"][0]["token_ids"])

    def test_an_update_raises_what_was_rewarded_and_lowers_what_was_punished(self):
        good, _ = self.sample_of(self.complete(seed=1), 1.0)
        bad, _ = self.sample_of(self.complete(seed=2), -1.0)

        before = (self.total(good), self.total(bad))
        for step in range(3):
            stats = self.worker.train({"samples": [good, bad], "policy_version": 0, "clip": 0.2})
            self.assertEqual(stats["policy_version"], step + 1)
            self.assertEqual(stats["staleness"], step)
        self.assertGreater(self.total(good), before[0])
        self.assertLess(self.total(bad), before[1])
        self.assertGreater(stats["clip_fraction"], 0.0)
        # A version the worker never had is refused.
        with self.assertRaises(chat.BadRequest):
            self.worker.train({"samples": [good], "policy_version": 9})

    def test_epochs_take_more_steps_on_one_batch_for_one_version(self):
        good, _ = self.sample_of(self.complete(seed=1), 1.0)

        before = self.total(good)
        stats = self.worker.train({"samples": [good], "policy_version": 0, "epochs": 1})
        after_one = self.total(good)
        self.assertEqual(stats["approx_kl"], 0.0)  # the one pass was on-policy
        stats = self.worker.train({"samples": [good], "policy_version": 0, "epochs": 3})
        self.assertEqual((stats["policy_version"], stats["epochs"], stats["staleness"]), (2, 3, 1))
        # The last of the three passes saw a policy already moved from the sampling one.
        self.assertGreater(stats["approx_kl"], 0.0)
        self.assertGreater(self.total(good), after_one)
        self.assertGreater(after_one, before)
        for bad in (0, 65, 1.5, True):
            with self.assertRaises(chat.BadRequest):
                self.worker.train({"samples": [good], "epochs": bad})

    def test_a_checkpoint_restores_the_policy_and_its_version(self):
        good, _ = self.sample_of(self.complete(seed=1), 1.0)
        self.worker.train({"samples": [good], "kl_coef": 0.1})
        saved = self.worker.save({})
        self.assertEqual(saved["policy_version"], 1)
        at_save = self.worker.logprobs({"sequences": [good["token_ids"]]})["logprobs"][0]
        self.worker.train({"samples": [good]})
        self.assertNotEqual(self.worker.logprobs({"sequences": [good["token_ids"]]})["logprobs"][0],
                            at_save)
        # A fresh worker (a restarted process) resumes from it.
        fresh = self.fresh_worker()
        self.assertEqual(fresh.load({"policy_version": 1})["policy_version"], 1)
        restored = fresh.logprobs({"sequences": [good["token_ids"]]})["logprobs"][0]
        for a, b in zip(restored, at_save):
            self.assertAlmostEqual(a, b, places=5)
        with self.assertRaises(NotFound):
            fresh.load({"policy_version": 7})


    def test_a_shared_prefix_is_read_from_the_cache_and_samples_the_same(self):
        def turn(messages, seed):
            reply = self.worker.complete({"messages": messages, "max_tokens": 12, "seed": seed})
            return reply, reply["usage"]["prompt_tokens_details"]["cached_tokens"]

        messages = [{"role": "system", "content": "You act for the user. " * 8},
                    {"role": "user", "content": "Say something."}]
        first, cached = turn(messages, 1)
        self.assertEqual(cached, 0)
        # The same prompt again: all of it but the last token comes from the cache, and the
        # reply and its log-probabilities are the ones an uncached policy gives.
        again, cached = turn(messages, 1)
        self.assertEqual(cached, first["usage"]["prompt_tokens"] - 1)
        uncached = tiny_worker(Path(self.folder.name))
        uncached.policy.prefixes = PrefixCache(0)
        for reply in (again, uncached.complete({"messages": messages, "max_tokens": 12, "seed": 1})):
            self.assertEqual(reply["choices"][0]["token_ids"], first["choices"][0]["token_ids"])
            for a, b in zip(reply["choices"][0]["logprobs"]["content"],
                            first["choices"][0]["logprobs"]["content"]):
                self.assertAlmostEqual(a["logprob"], b["logprob"], delta=1e-3)
        # The next turn re-sends the conversation: the whole prompt before it is cached (and
        # the reply, as far as re-encoding its text gives its tokens back: a random model's
        # bytes may not).
        nxt = messages + [first["choices"][0]["message"], {"role": "user", "content": "More."}]
        _, cached = turn(nxt, 2)
        self.assertGreaterEqual(cached, first["usage"]["prompt_tokens"])
        # An update changes the weights, so nothing cached before it is used after it.
        sample, _ = self.sample_of(first, 1.0)
        self.worker.train({"samples": [sample]})
        _, cached = turn(messages, 1)
        self.assertEqual(cached, 0)

    def test_a_batch_samples_what_each_request_would_alone(self):
        prompts = [[5 + i for i in range(n)] for n in (30, 70, 50)]
        # The first runs past the room its batch starts with (twice the longest prompt).
        settings = [(160, 1.0, 1.0, 1), (4, 0.0, 1.0, None), (12, 0.7, 0.9, 3)]

        def draws():
            return [generate.Draw(prompt, *setting) for prompt, setting in zip(prompts, settings)]

        policy = self.worker.policy
        policy.prefixes = PrefixCache(0)
        alone = draws()
        for draw in alone:
            generate.generate(policy, [draw])
        together = draws() + [generate.Draw([], 4, 1.0, 1.0)]
        generate.generate(policy, together)
        self.assertIsNotNone(together[-1].error)  # an empty prompt fails alone
        for one, batched in zip(alone, together):
            self.assertIsNone(batched.error)
            self.assertEqual(batched.ids, one.ids)
            self.assertEqual(batched.finish, one.finish)
            for a, b in zip(batched.logprobs, one.logprobs):
                self.assertAlmostEqual(a, b, delta=1e-3)
        self.assertEqual(len(together[1].ids), 4)
        self.assertGreater(len(together[0].ids), 2 * len(prompts[1]))
        # Concurrent requests to the worker are sampled as one batch, each as it would be alone.
        replies = [None] * 3

        def ask(index):
            replies[index] = self.complete(seed=index)

        threads = [threading.Thread(target=ask, args=(index,)) for index in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for index, reply in enumerate(replies):
            self.assertEqual(reply["choices"][0]["token_ids"],
                             self.complete(seed=index)["choices"][0]["token_ids"])

    def test_masked_log_probabilities_are_the_full_ones_where_masked(self):
        sample, _ = self.sample_of(self.complete(seed=1), 1.0)
        model, device = self.worker.policy.model, self.worker.policy.device
        with torch.no_grad():
            full = ppo.token_logprobs(model, sample["token_ids"], device, 0.7)
            masked = ppo.token_logprobs(model, sample["token_ids"], device, 0.7, sample["loss_mask"])
        keep = torch.tensor(sample["loss_mask"]).bool()
        torch.testing.assert_close(masked[keep], full[keep])
        self.assertTrue(torch.all(masked[~keep] == 0))

    def test_a_shared_prefix_is_read_once_with_the_same_loss_and_gradient(self):
        first, _ = self.sample_of(self.complete(seed=1), 1.0)
        second, _ = self.sample_of(self.complete(seed=2), -1.0)
        other, _ = self.sample_of(self.worker.complete({
            "messages": [{"role": "user", "content": "Name a colour, please."}],
            "max_tokens": 12, "seed": 3}), 0.5)
        samples = ppo.parse_samples([first, other, second])
        prompt = first["loss_mask"].index(1)
        self.assertGreaterEqual(prompt - 1, ppo.SHARED_LEAST)
        # The two replies to one request share all of it but the token whose logits predict
        # the first reply token; the other request shares too little.
        self.assertEqual(ppo.shared_prefixes(samples), [(prompt - 1, [0, 2]), (0, [1])])

        model, device = self.worker.policy.model, self.worker.policy.device

        def gradients(logprobs_of):
            model.zero_grad(set_to_none=True)
            values = {}
            for index, logprobs in logprobs_of():
                mask = torch.tensor(samples[index].loss_mask)
                (-(logprobs * mask).sum() * (index + 1)).backward()
                values[index] = logprobs.detach()
            return values, {name: p.grad.clone() for name, p in model.named_parameters()
                            if p.grad is not None}

        def alone():
            for index, sample in enumerate(samples):
                yield index, ppo.token_logprobs(model, sample.token_ids, device, 1.0,
                                                sample.loss_mask)

        shared_values, shared_grads = gradients(
            lambda: ppo.logprobs_of(model, samples, device, 1.0))
        alone_values, alone_grads = gradients(alone)
        model.zero_grad(set_to_none=True)
        for index in alone_values:
            torch.testing.assert_close(shared_values[index], alone_values[index])
        self.assertEqual(shared_grads.keys(), alone_grads.keys())
        self.assertTrue(alone_grads)
        for name, grad in alone_grads.items():
            torch.testing.assert_close(shared_grads[name], grad, rtol=1e-4, atol=1e-6, msg=name)


class Lora(Updates):
    """The same updates and checkpoints with rank-4 LoRA adapters instead of every weight."""

    def fresh_worker(self) -> Worker:
        return tiny_worker(Path(self.folder.name), lr=5e-2, lora=4)

    def test_only_the_adapters_train_and_the_reference_is_the_base(self):
        health = self.worker.health()
        self.assertTrue(health["lora"])
        self.assertLess(health["trainable_parameters"], health["parameters"] / 5)
        frozen = {name: p.detach().clone() for name, p in self.worker.policy.model.named_parameters()
                  if not p.requires_grad}
        good, _ = self.sample_of(self.complete(seed=1), 1.0)
        # Untrained adapters (B = 0) leave the policy at its reference: no KL.
        stats = self.worker.train({"samples": [good], "kl_coef": 0.1})
        self.assertAlmostEqual(stats["kl"], 0.0, places=6)
        stats = self.worker.train({"samples": [good], "kl_coef": 0.1})
        self.assertGreater(stats["kl"], 0.0)
        for name, p in self.worker.policy.model.named_parameters():
            if name in frozen:
                self.assertTrue(torch.equal(p, frozen[name]), name)

    def test_a_whole_model_checkpoint_does_not_load_into_adapters(self):
        whole = tiny_worker(Path(self.folder.name))
        whole.save({})
        with self.assertRaises(chat.BadRequest):
            self.worker.load({"policy_version": 0})


class Supervised(unittest.TestCase):
    conversation = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Read /a."},
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "call_0", "type": "function",
                         "function": {"name": "read_file", "arguments": "{\"path\": \"/a\"}"}}]},
        {"role": "tool", "tool_call_id": "call_0", "content": "{\"status\": \"ok\"}"},
        {"role": "assistant", "content": "It says ok."},
    ]

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.worker = tiny_worker(Path(self.folder.name))

    def tearDown(self):
        self.folder.cleanup()

    def test_the_mask_covers_exactly_what_the_assistant_wrote(self):
        rendered = self.worker.render({"messages": self.conversation})
        tokenizer = self.worker.policy.tokenizer
        ids, mask = rendered["token_ids"], rendered["loss_mask"]
        self.assertEqual(len(ids), len(mask))
        # The masked runs, decoded: the call, then the answer, each with its end-of-turn token.
        runs, current = [], []
        for token, masked in zip(ids, mask):
            if masked:
                current.append(token)
            elif current:
                runs.append(tokenizer.decode(current))
                current = []
        if current:
            runs.append(tokenizer.decode(current))
        self.assertEqual(runs, [
            '<tool_call>{"name": "read_file", "arguments": {"path": "/a"}}</tool_call><|im_end|>',
            "It says ok.<|im_end|>",
        ])
        # The ids are the template's for the conversation as a whole.
        whole = tokenizer.apply_chat_template(self.conversation, tokenize=False)
        self.assertEqual(ids, tokenizer(whole, add_special_tokens=False).input_ids)

    def test_supervised_steps_make_the_reference_likelier(self):
        rendered = self.worker.render({"messages": self.conversation})
        first = self.worker.sft({"samples": [rendered]})
        for _ in range(20):
            last = self.worker.sft({"samples": [rendered]})
        self.assertLess(last["loss"], first["loss"] / 2)
        self.assertEqual(last["policy_version"], 21)
        self.assertEqual(last["tokens"], sum(rendered["loss_mask"]))
        with self.assertRaises(ppo.BadBatch):
            self.worker.sft({"samples": [{"token_ids": [1, 2], "loss_mask": [0, 0]}]})


if __name__ == "__main__":
    unittest.main()
