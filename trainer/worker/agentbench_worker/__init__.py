"""agentbench's trainer worker: one process that holds a policy on its device (CPU, CUDA or
Trainium through TorchNeuron) for both generation and training, served on loopback.

- ``POST /v1/chat/completions``: OpenAI-compatible chat completions with tools, each reply with
  the log-probability of every sampled token and the token ids themselves, so that agentbench's
  ``openai:`` agent plays episodes against it unchanged and a trainer keeps what was sampled.
- ``POST /v1/logprobs``: the policy's log-probabilities of given token sequences.
- ``POST /v1/render``: a whole conversation as token ids, with a loss mask on the assistant's
  turns, for supervised fine-tuning on reference solutions.
- ``POST /v1/sft``: one supervised update (mean negative log-likelihood of the masked tokens).
- ``POST /v1/train``: one PPO-style clipped update (``epochs`` optimizer steps, one new version) on
  a batch of token sequences with a loss mask, per-token advantages and the log-probabilities
  they were sampled with.
- ``POST /v1/weights/save`` and ``POST /v1/weights/load``: checkpoints by policy version.
- ``GET /health``: the model, device and policy version.
"""

__version__ = "0.1.0"
