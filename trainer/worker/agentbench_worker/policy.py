"""The policy: a causal language model and its tokenizer on the device the worker runs on.

A policy comes from a Hugging Face model folder (``--model DIR``), or is ``tiny``: a randomly
initialised two-layer Llama over a byte-level tokenizer, built from a config with no weights to
download, for tests. Either way the chat template is agentbench's (``chat.TEMPLATE``), so the
tool format a policy is trained on is the one it is served with.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

import torch

from .prefix import PrefixCache

TINY = "tiny"

#: How many generations' KV caches a policy keeps for reuse (`--prefix-cache`): as many as a
#: batch has rows (`--max-batch`), so that episodes played a batch at a time each find their
#: conversation's cache at their next turn.
DEFAULT_PREFIXES = 16


def pick_device(requested: str) -> torch.device:
    """``auto`` is CUDA when there is a GPU, then Trainium (TorchNeuron's ``neuron`` device, when
    ``torch-neuronx`` is installed), then the CPU."""
    if requested == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if importlib.util.find_spec("torch_neuronx") is not None:
            requested = "neuron"
        else:
            return torch.device("cpu")
    if requested == "neuron":
        # TorchNeuron registers the `neuron` device when imported.
        import torch_neuronx  # noqa: F401
    return torch.device(requested)


@dataclass
class Policy:
    model: torch.nn.Module
    tokenizer: object
    device: torch.device
    name: str
    #: Bumped by every update; a sample records the version that produced it.
    version: int = 0
    #: The KV caches of recent generations (`prefix`); emptied whenever the weights change.
    prefixes: PrefixCache = field(default_factory=lambda: PrefixCache(DEFAULT_PREFIXES))


def tiny_tokenizer():
    """A byte-level tokenizer: every byte a token, plus ChatML's special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {symbol: index for index, symbol in enumerate(alphabet)}
    inner = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    inner.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    inner.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=inner,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    return tokenizer


def tiny_model(vocab_size: int, seed: int) -> torch.nn.Module:
    """Two Llama layers of width 64, randomly initialised from `seed`."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config)


def load(spec: str, device: torch.device, dtype: torch.dtype, seed: int, name: str | None,
         lora: int = 0) -> Policy:
    """The policy `spec` names: ``tiny`` or a model folder; with `lora` > 0, only rank-`lora`
    adapters on the attention projections train (`with_lora`)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from .chat import TEMPLATE

    if spec == TINY:
        tokenizer = tiny_tokenizer()
        model = tiny_model(len(tokenizer), seed)
    else:
        tokenizer = AutoTokenizer.from_pretrained(spec)
        model = AutoModelForCausalLM.from_pretrained(spec, dtype=dtype)
    tokenizer.chat_template = TEMPLATE
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.to(device=device, dtype=dtype)
    if lora > 0:
        model = with_lora(model, lora)
    model.eval()
    return Policy(model=model, tokenizer=tokenizer, device=device, name=name or spec)


#: The modules LoRA adapts: a Llama-style model's attention projections.
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]


def with_lora(model: torch.nn.Module, rank: int) -> torch.nn.Module:
    """`model` with LoRA adapters (rank `rank`, alpha 2 x rank, no dropout) on its attention
    projections; the base weights are frozen. The adapters start at zero (B = 0), so the model
    answers as before until trained, and with the adapters disabled it is the starting policy.
    peft keeps the adapters in fp32 over a bf16 or fp16 base."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0,
                        target_modules=LORA_TARGETS, task_type="CAUSAL_LM")
    return get_peft_model(model, config)


def is_lora(model: torch.nn.Module) -> bool:
    return hasattr(model, "disable_adapter") and hasattr(model, "peft_config")
