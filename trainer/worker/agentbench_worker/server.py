"""The worker's HTTP API on loopback (see the package's documentation). One policy serves every
request; a lock lets one batch of generations (the chat requests that arrived together,
`generate.Batcher`) or one update use it at a time. Errors are JSON,
``{"error": {"code", "message"}}``: 400 for a request it cannot serve, 404 for an unknown path or
checkpoint, 500 for anything else.
"""

from __future__ import annotations

import copy
import json
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import torch

from . import chat, ppo
from .generate import Batcher
from .grammar import Grammars
from . import policy as policies
from .policy import Policy

#: The largest request body read, in bytes.
MAX_BODY = 64 * 1024 * 1024


class NotFound(LookupError):
    pass


class Worker:
    """The policy, its optimizer, the frozen reference it started as, and its checkpoints. With
    LoRA the reference is the policy with its adapters disabled, so no copy is kept."""

    def __init__(self, policy: Policy, checkpoints: Path, lr: float, reference: bool,
                 batch_window: float = 0.02, max_batch: int = 16, tool_grammar: bool = False):
        self.policy = policy
        #: Hold every reply's tool calls to its request's tools (`grammar`), not only `strict`
        #: tools' and required calls.
        self.tool_grammar = tool_grammar
        self.grammars_made = threading.Lock()
        self.grammars_of_policy: Grammars | None = None
        self.checkpoints = checkpoints
        self.lock = threading.Lock()
        self.batcher = Batcher(policy, self.lock, batch_window, max_batch)
        self.lr = lr
        self.optimizer = None
        self.reference = None
        self.lora = policies.is_lora(policy.model)
        self.has_reference = reference
        if reference and not self.lora:
            self.reference = copy.deepcopy(policy.model).eval()
            for parameter in self.reference.parameters():
                parameter.requires_grad_(False)

    def health(self) -> dict:
        policy = self.policy
        return {
            "model": policy.name,
            "device": str(policy.device),
            "dtype": str(next(policy.model.parameters()).dtype).removeprefix("torch."),
            "parameters": sum(p.numel() for p in policy.model.parameters()),
            "trainable_parameters": sum(p.numel() for p in policy.model.parameters() if p.requires_grad),
            "lora": self.lora,
            "policy_version": policy.version,
        }

    def grammars(self) -> Grammars:
        """The policy's tool-call grammars, made on first use (reading the vocabulary takes a
        second)."""
        with self.grammars_made:
            if self.grammars_of_policy is None:
                self.grammars_of_policy = Grammars(self.policy.tokenizer)
            return self.grammars_of_policy

    def complete(self, body: dict) -> dict:
        draw = chat.draw_of(self.policy, body, self.grammars, self.tool_grammar)
        self.batcher.sample(draw)
        return chat.reply(self.policy, draw)

    def logprobs(self, body: dict) -> dict:
        sequences = body.get("sequences")
        if not isinstance(sequences, list) or not sequences:
            raise chat.BadRequest("`sequences` must be a non-empty array of token id arrays")
        temperature = float(chat.number(body, "temperature", 1.0, 1e-6, 10.0))
        with self.lock, torch.no_grad():
            return {
                "logprobs": [
                    ppo.token_logprobs(self.policy.model, [int(t) for t in ids], self.policy.device,
                                       temperature).tolist()
                    for ids in sequences
                ],
                "policy_version": self.policy.version,
            }

    def render(self, body: dict) -> dict:
        return chat.render_conversation(self.policy, body.get("messages"), body.get("tools") or [])

    def sft(self, body: dict) -> dict:
        """One supervised step: the mean negative log-likelihood of every masked token of the
        batch, minimised by one AdamW step."""
        samples = ppo.parse_samples(body.get("samples"), supervised=True)

        def loss_of(index: int, logprobs: torch.Tensor, tokens: float) -> dict:
            mask = torch.tensor(samples[index].loss_mask, device=logprobs.device)
            return {"loss": -(logprobs * mask).sum() / tokens}

        with self.lock:
            return self.update(samples, loss_of)

    def train(self, body: dict) -> dict:
        samples = ppo.parse_samples(body.get("samples"))
        clip = float(chat.number(body, "clip", 0.2, 0.0, 10.0))
        kl_coef = float(chat.number(body, "kl_coef", 0.0, 0.0, 100.0))
        temperature = float(chat.number(body, "temperature", 1.0, 1e-6, 10.0))
        epochs = chat.number(body, "epochs", 1, 1, 64)
        if not isinstance(epochs, int):
            raise chat.BadRequest("`epochs` must be an integer")
        produced_by = body.get("policy_version")
        if kl_coef > 0 and not self.has_reference:
            raise chat.BadRequest("`kl_coef` needs the reference policy (started with --no-reference)")
        policy = self.policy

        def loss_of(index: int, new: torch.Tensor, tokens: float) -> dict:
            sample = samples[index]
            return ppo.clipped_loss(
                new,
                torch.tensor(sample.old_logprobs, device=new.device),
                torch.tensor(sample.advantages, device=new.device),
                torch.tensor(sample.loss_mask, device=new.device),
                clip,
                references[index] if references else None,
                kl_coef,
                tokens,
            )

        with self.lock:
            if produced_by is not None and (not isinstance(produced_by, int) or produced_by > policy.version):
                raise chat.BadRequest(
                    f"`policy_version` {produced_by!r} is not a version this worker has had "
                    f"(it is at {policy.version})"
                )
            references = self.reference_logprobs(samples, temperature) if kl_coef > 0 else None
            stats = self.update(samples, loss_of, temperature, epochs)
            stats["staleness"] = None if produced_by is None else policy.version - 1 - produced_by
            return stats

    def reference_logprobs(self, samples: list[ppo.Sample], temperature: float) -> dict:
        """Each sample's masked tokens' log-probabilities under the starting policy, by index."""
        policy = self.policy
        with torch.no_grad():
            if self.lora:
                with policy.model.disable_adapter():
                    return dict(ppo.logprobs_of(policy.model, samples, policy.device, temperature))
            return dict(ppo.logprobs_of(self.reference, samples, policy.device, temperature))

    def update(self, samples: list[ppo.Sample], loss_of, temperature: float = 1.0,
               epochs: int = 1) -> dict:
        """`epochs` AdamW steps on the whole batch, under the lock, and one version: in each,
        every sample's `loss_of(index, logprobs, tokens)["loss"]` (its part of the mean over the
        batch's `tokens` masked tokens, from its masked tokens' log-probabilities at
        `temperature` under the weights as they are, `ppo.logprobs_of`) is backpropagated,
        gradients clipped to norm 1 and the step taken; then the version is bumped. Returns
        every part `loss_of` gives summed over the batch in the last epoch (after the first, a
        PPO loss's clip fraction and KL show how far the epochs before it moved the policy), with
        its gradient norm, the token and sample counts, the epochs, the new version and the
        seconds taken."""
        policy = self.policy
        optimizer = self.ensure_optimizer()
        started = time.monotonic()
        tokens = float(sum(sum(sample.loss_mask) for sample in samples))
        policy.model.train()
        try:
            for _ in range(epochs):
                totals: dict[str, float] = {}
                optimizer.zero_grad(set_to_none=True)
                for index, logprobs in ppo.logprobs_of(policy.model, samples, policy.device,
                                                       temperature):
                    parts = loss_of(index, logprobs, tokens)
                    parts["loss"].backward()
                    for key, value in parts.items():
                        totals[key] = totals.get(key, 0.0) + float(value.detach())
                norm = torch.nn.utils.clip_grad_norm_(policy.model.parameters(), 1.0)
                optimizer.step()
        finally:
            policy.model.eval()
            policy.prefixes.clear()
        policy.version += 1
        return {
            **totals,
            "grad_norm": float(norm),
            "tokens": int(tokens),
            "samples": len(samples),
            "epochs": epochs,
            "policy_version": policy.version,
            "seconds": time.monotonic() - started,
        }

    def ensure_optimizer(self):
        if self.optimizer is None:
            self.optimizer = torch.optim.AdamW(
                [p for p in self.policy.model.parameters() if p.requires_grad], lr=self.lr
            )
        return self.optimizer

    def save(self, body: dict) -> dict:
        """Writes the weights (and, unless ``optimizer`` is false, the optimizer's state: a weights
        sync to a generating worker needs only the weights) as the checkpoint of the current
        version."""
        optimizer = body.get("optimizer", True)
        if not isinstance(optimizer, bool):
            raise chat.BadRequest("`optimizer` must be a boolean")
        with self.lock:
            version = self.policy.version
            folder = self.checkpoints / f"v{version}"
            folder.mkdir(parents=True, exist_ok=True)
            self.policy.model.save_pretrained(folder)
            if optimizer and self.optimizer is not None:
                torch.save(self.optimizer.state_dict(), folder / "optimizer.pt")
            (folder / "agentbench.json").write_text(json.dumps({"policy_version": version}))
            return {"policy_version": version, "path": str(folder)}

    def load(self, body: dict) -> dict:
        version = body.get("policy_version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise chat.BadRequest("`policy_version` must be an integer")
        folder = self.checkpoints / f"v{version}"
        if not (folder / "agentbench.json").is_file():
            raise NotFound(f"no checkpoint of policy version {version} in {self.checkpoints}")
        from safetensors.torch import load_file

        adapter = (folder / "adapter_config.json").is_file()
        if adapter != self.lora:
            kind = "LoRA adapters" if adapter else "a whole model"
            raise chat.BadRequest(
                f"checkpoint v{version} holds {kind}, and this worker trains "
                f"{'LoRA adapters' if self.lora else 'the whole model'}"
            )
        with self.lock:
            state = {}
            for shard in sorted(folder.glob("*.safetensors")):
                state.update(load_file(shard, device=str(self.policy.device)))
            if self.lora:
                from peft import set_peft_model_state_dict

                loaded = set_peft_model_state_dict(self.policy.model, state)
                missing, unexpected = [], list(loaded.unexpected_keys)
            else:
                missing, unexpected = self.policy.model.load_state_dict(state, strict=False)
            # Tied weights are saved once; anything else missing means another model's files.
            missing = [key for key in missing if not key.endswith("lm_head.weight")]
            if missing or unexpected:
                raise chat.BadRequest(
                    f"checkpoint v{version} does not fit this model: missing {missing[:3]}, "
                    f"unexpected {unexpected[:3]}"
                )
            optimizer = folder / "optimizer.pt"
            if optimizer.is_file():
                self.optimizer = None
                self.ensure_optimizer().load_state_dict(
                    torch.load(optimizer, map_location=self.policy.device)
                )
            self.policy.version = version
            self.policy.prefixes.clear()
            return {"policy_version": version, "path": str(folder)}


ROUTES = {
    ("GET", "/health"): Worker.health,
    ("POST", "/v1/chat/completions"): Worker.complete,
    ("POST", "/v1/logprobs"): Worker.logprobs,
    ("POST", "/v1/render"): Worker.render,
    ("POST", "/v1/sft"): Worker.sft,
    ("POST", "/v1/train"): Worker.train,
    ("POST", "/v1/weights/save"): Worker.save,
    ("POST", "/v1/weights/load"): Worker.load,
}


def handler_for(worker: Worker):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

        def answer(self, status: int, body: dict):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def error(self, status: int, code: str, message: str):
            self.answer(status, {"error": {"code": code, "message": message}})

        def serve(self, method: str):
            path = self.path.split("?", 1)[0]
            route = ROUTES.get((method, path))
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY:
                return self.error(413, "too_large", f"the body is over {MAX_BODY} bytes")
            raw = self.rfile.read(length) if length else b""
            if route is None:
                return self.error(404, "not_found", f"no route {method} {path}")
            try:
                body = json.loads(raw) if raw else {}
                if not isinstance(body, dict):
                    raise chat.BadRequest("the body must be a JSON object")
                if method == "GET":
                    return self.answer(200, route(worker))
                return self.answer(200, route(worker, body))
            except json.JSONDecodeError as error:
                self.error(400, "invalid_json", str(error))
            except (chat.BadRequest, ppo.BadBatch) as error:
                self.error(400, "invalid_request", str(error))
            except NotFound as error:
                self.error(404, "not_found", str(error))
            except Exception as error:  # noqa: BLE001 - answered, and the worker goes on
                traceback.print_exc()
                self.error(500, "internal", f"{type(error).__name__}: {error}")

        def do_GET(self):  # noqa: N802 - the base class's name
            self.serve("GET")

        def do_POST(self):  # noqa: N802 - the base class's name
            self.serve("POST")

    return Handler


def serve(worker: Worker, host: str, port: int, ready) -> None:
    server = ThreadingHTTPServer((host, port), handler_for(worker))
    ready(server.server_address[1])
    server.serve_forever()
