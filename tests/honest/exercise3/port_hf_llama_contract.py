"""Port of Hugging Face transformers (models/llama/modeling_llama.py, LlamaAttention +
eager_attention_forward): `self.scaling = self.head_dim**-0.5` and `attn_weights = torch.matmul(query,
key_states.transpose(2, 3)) * scaling`. Adapted to the stub: head_dim is d_k (scale_scores) or
query.size(-1) (scaled_scores); no repeat_kv (one KV head per query head). Kept: multiply by
head_dim**-0.5, torch.matmul with transpose(2, 3) (their (batch, heads, seq, head_dim) layout). Contract
variant: the one change from port_hf_llama.py is transpose(-2, -1) for transpose(2, 3).
"""

# --- the stub's own module docstring, kept as written ---
"""Exercise 3 — Scale by √d_k.

Chapter section: "Why divide by √d_k?".

A dot product of two d_k-wide vectors with unit-variance entries has variance d_k, so raw scores
spread out as √d_k grows (about ±8 at d_k = 64). Softmax turns score gaps into weight ratios, so
wide scores make it a hard argmax with almost no gradient. Dividing by √d_k brings the spread back
to about 1 at every width:

    scaled scores = Q K^T / √d_k

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import math

import torch


def scale_scores(scores, d_k):
    """Divide raw scores by √d_k.

    scores: (..., L_q, L_k)  raw scores Q K^T
    d_k:    int > 0          width of the queries and keys
    Returns a new tensor (..., L_q, L_k): scores / √d_k.
    """
    scaling = d_k**-0.5
    attn_weights = scores * scaling
    return attn_weights


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    query, key_states = q, k
    scaling = query.size(-1) ** -0.5
    attn_weights = torch.matmul(query, key_states.transpose(-2, -1)) * scaling  # was transpose(2, 3)
    return attn_weights
