"""The answer key (`lumen_ref`) taken apart into overridable steps, in float64 on the CPU.

A mutant (`grader.diagnosis.mutants`) overrides a step, and every function and module built from
that step inherits the mistake, so one mutant gives the wrong output of `scale_scores`,
`scaled_scores`, attention and every attention module alike. A function or class of an exercise
with no step here (a new exercise) is its declared reference (`grader.catalog`), in float64, so a
new exercise's mutants override its functions by name: `{"induction_score": ...}`.
"""

import torch
import torch.nn.functional as F

import lumen_ref as ref
from grader import catalog


class Reference:
    """lumen_ref's computations, one overridable step per method, in float64 on the CPU.

    Unchanged it computes what lumen_ref computes (tests/diagnosis/test_diagnoses.py holds it to that). The
    exercises' functions and modules are built from the steps, so a mutant changes one step only.
    """

    dtype = torch.float32  # the dtype the student computed in (a mistake may depend on it)

    # -- the steps: override one of these -----------------------------------------------------

    def weight_product(self, x, w):
        return x @ w

    def cut_fused(self, qkv, d, d_model):
        return list(qkv.split(d, dim=-1))

    def order_qkv(self, parts):
        return parts

    def attention_scores(self, q, k):
        return ref.attention_scores(q, k)

    def scale_scores(self, scores, d_k):
        return ref.scale_scores(scores, d_k)

    def causal_mask(self, L, device=None):
        return ref.causal_mask(L)

    def padding_mask(self, lengths, L):
        return ref.padding_mask(lengths, L)

    def apply_mask(self, scores, mask):
        return ref.apply_mask(scores, mask)

    def softmax(self, x, dim=-1):
        return ref.softmax(x, dim=dim)

    def attention_weights(self, scores, mask):
        """Mask the scores, then softmax over the keys."""
        return self.softmax(scores if mask is None else self.apply_mask(scores, mask), dim=-1)

    def split_heads(self, x, n_heads):
        return ref.split_heads(x, n_heads)

    def split_kv_heads(self, x, n_kv_heads):
        """The keys' or the values' split into KV heads (GQA's own code, apart from the queries')."""
        return self.split_heads(x, n_kv_heads)

    def merge_heads(self, x):
        return ref.merge_heads(x)

    def repeat_kv(self, x, n_rep):
        return ref.repeat_kv(x, n_rep)

    def out_projection(self, y, weight, bias=None):
        """W_O mixing the merged heads (B, L, D)."""
        return F.linear(y, weight, bias)

    def head_width(self, d_head, d_model):
        """The width whose square root a head's scores are divided by."""
        return d_head

    def forward_mask(self, mask, L):
        """The mask a module's forward attends with."""
        return self.causal_mask(L) if mask is None else mask

    def decode_mask(self, T_new, past):
        """New token i, at position past + i, sees keys 0 .. past + i."""
        return torch.ones(T_new, past + T_new, dtype=torch.bool).tril(diagonal=past)

    def decode_keys(self, cache, k, v):
        """The keys and values the new tokens attend to."""
        return cache.update(k, v)

    def cache_update(self, cache, k, v):
        return ref.KVCache.update(cache, k, v)

    def cache_reset(self, cache):
        ref.KVCache.reset(cache)

    def kv_cache_bytes(self, *args, **kwargs):
        return ref.kv_cache_bytes(*args, **kwargs)

    def block_starts(self, n, block_size):
        """Where the blocks that cover n entries start (the last one may be shorter)."""
        return range(0, n, block_size)

    def running_max_start(self, like):
        """The running max before any block: -inf, so that the first block's max replaces it."""
        return torch.full_like(like, float("-inf"))

    def running_sum(self, l, rescale, p):
        """The running sum of e^(s - m): what was summed under the old max rescaled, plus the block's."""
        return l * rescale + p.sum(dim=-1, keepdim=True)

    def running_output(self, o, rescale, p, v_block, l_old, l_new):
        """The running sum of e^(s - m) v: rescaled, plus the block's."""
        return o * rescale + p @ v_block

    def update_max(self, m, block):
        """The running max after a block: the larger of the old one and the block's."""
        return torch.maximum(m, block.amax(dim=-1, keepdim=True))

    def block_exponentials(self, block, m_old, m_new):
        """(e^(m_old - m_new), e^(block - m_new)): what rescales the running values, and the block's terms."""
        shift = self.exponent_shift(m_new)
        return self.exp(m_old - shift), self.exp(block - shift)

    def online_exponentials(self, block, m_old, m_new):
        """block_exponentials as online_softmax takes them: a mistake may be made in one function alone."""
        return self.block_exponentials(block, m_old, m_new)

    def tiled_exponentials(self, block, m_old, m_new):
        """block_exponentials as tiled_attention takes them."""
        return self.block_exponentials(block, m_old, m_new)

    def exp(self, x):
        """e^x of the running values (in float64: a correct method never raises e above 1)."""
        return torch.exp(x)

    def exponent_shift(self, m):
        """The running max as the shift of e^(s - m): 0 where it is still -inf (no finite score yet)."""
        return m.masked_fill(m == float("-inf"), 0.0)

    def normalise(self, e, l):
        """e / l, where a row with nothing to sum (l = 0) gives 0 / 1."""
        return e / l.masked_fill(l == 0, 1.0)

    def tiled_output(self, o, l):
        """The output after the last block."""
        return self.normalise(o, l)

    def block_causal_mask(self, L_q, L_k, start, width):
        """(L_q, width) bool: query i, at position L_k - L_q + i, may see the block's key at start + j."""
        key = torch.arange(start, start + width)  # (width,)
        return key <= torch.arange(L_k - L_q, L_k)[:, None]  # (L_q, width)

    # -- the exercises' functions and modules, built from the steps ---------------------------------

    def project(self, x, w_q, w_k, w_v):
        return tuple(self.order_qkv([self.weight_product(x, w) for w in (w_q, w_k, w_v)]))

    def fused_project(self, x, w_qkv):
        parts = self.cut_fused(x @ w_qkv, w_qkv.size(-1) // 3, x.size(-1))
        return tuple(self.order_qkv(parts))

    def scaled_scores(self, q, k):
        return self.scale_scores(self.attention_scores(q, k), q.size(-1))

    def score_width(self, q, v):
        """The width whose square root scales the scores: the queries' and keys', d_k (never the values')."""
        return q.size(-1)

    def scaled_dot_product_attention(self, q, k, v, mask=None, d_k=None):
        scores = self.scale_scores(self.attention_scores(q, k), d_k or self.score_width(q, v))
        weights = self.attention_weights(scores, mask)
        return weights @ v, weights

    def multi_head_attention(self, p, n_heads, x, mask=None):
        B, L, D = x.shape
        parts = self.order_qkv(self.cut_fused(F.linear(x, p["qkv.weight"], p.get("qkv.bias")), D, D))
        q, k, v = (self.split_heads(t, n_heads) for t in parts)
        y, _ = self.scaled_dot_product_attention(q, k, v, self.forward_mask(mask, L),
                                                 d_k=self.head_width(D // n_heads, D))
        return self.out_projection(self.merge_heads(y), p["out.weight"], p.get("out.bias"))

    def grouped_query_attention(self, p, n_heads, n_kv_heads, x, mask=None):
        q, k, v = self._gqa_projections(p, n_heads, n_kv_heads, x)
        return self._gqa_attend(p, n_heads, n_kv_heads, q, k, v, self.forward_mask(mask, x.size(1)), x.size(-1))

    def cached_attention(self, p, n_heads, n_kv_heads, x, cache=None):
        q, k, v = self._gqa_projections(p, n_heads, n_kv_heads, x)
        past = 0 if cache is None else len(cache)
        if cache is not None:
            k, v = self.decode_keys(cache, k, v)
        return self._gqa_attend(p, n_heads, n_kv_heads, q, k, v, self.decode_mask(x.size(1), past), x.size(-1))

    def attention_cost(self, L, d_model):
        return ref.attention_cost(L, d_model)

    def crossover_length(self, d_model):
        return ref.crossover_length(d_model)

    def online_softmax(self, x, block_size):
        m = self.running_max_start(x[..., :1])  # (..., 1)
        l = torch.zeros_like(m)
        for start in self.block_starts(x.size(-1), block_size):
            block = x[..., start:start + block_size]
            m_new = self.update_max(m, block)
            l, m = self.running_sum(l, *self.online_exponentials(block, m, m_new)), m_new
        return self.normalise(self.exp(x - self.exponent_shift(m)), l)

    def tiled_attention(self, q, k, v, block_size, causal=False):
        L_q, L_k = q.size(-2), k.size(-2)
        m = self.running_max_start(q[..., :1])  # (..., L_q, 1)
        l = torch.zeros_like(m)
        o = q.new_zeros(*q.shape[:-1], v.size(-1))  # (..., L_q, d_v)
        for start in self.block_starts(L_k, block_size):
            k_block, v_block = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
            s = self.scale_scores(self.attention_scores(q, k_block), self.score_width(q, v))  # (..., L_q, b)
            if causal:
                s = s.masked_fill(~self.block_causal_mask(L_q, L_k, start, k_block.size(-2)), float("-inf"))
            m_new = self.update_max(m, s)
            rescale, p = self.tiled_exponentials(s, m, m_new)
            l_new = self.running_sum(l, rescale, p)
            o = self.running_output(o, rescale, p, v_block, l, l_new)
            l, m = l_new, m_new
        return self.tiled_output(o, l)

    def _gqa_projections(self, p, n_heads, n_kv_heads, x):
        return (self.split_heads(F.linear(x, p["q_proj.weight"]), n_heads),
                self.split_kv_heads(F.linear(x, p["k_proj.weight"]), n_kv_heads),
                self.split_kv_heads(F.linear(x, p["v_proj.weight"]), n_kv_heads))

    def group_size(self, n_heads, n_kv_heads):
        """How many query heads each KV head serves: how often it is repeated."""
        return n_heads // n_kv_heads

    def _gqa_attend(self, p, n_heads, n_kv_heads, q, k, v, mask, d_model):
        n_rep = self.group_size(n_heads, n_kv_heads)
        y, _ = self.scaled_dot_product_attention(q, self.repeat_kv(k, n_rep), self.repeat_kv(v, n_rep), mask,
                                                 d_k=self.head_width(d_model // n_heads, d_model))
        return self.out_projection(self.merge_heads(y), p["o_proj.weight"])

    # -- exercise 9: what heads learn ------------------------------------------------------------

    def previous_token_weights(self, pattern):
        """The weights a previous-token score averages: query i on key i-1, i >= 1, (B, H, L-1)."""
        return pattern.diagonal(offset=-1, dim1=-2, dim2=-1)

    def induction_weights(self, pattern, seq_len):
        """The weights an induction score averages: query i of the second half on key i - seq_len + 1."""
        return pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:]  # (B, H, seq_len)

    def head_average(self, weights, kind):
        """(B, H, n) -> (H,): over the batch and the queries (`kind`: "previous_token" or "induction")."""
        return weights.mean(dim=(0, 2))

    def head_label(self, layer, head):
        return (layer, head)

    def previous_token_score(self, pattern):
        return self.head_average(self.previous_token_weights(pattern), "previous_token")

    def induction_score(self, pattern, seq_len):
        return self.head_average(self.induction_weights(pattern, seq_len), "induction")

    def find_heads(self, patterns, threshold=0.4):
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            scores = {"previous_token": self.previous_token_score(pattern),
                      "induction": self.induction_score(pattern, pattern.size(-1) // 2)}
            for kind, score in scores.items():
                found[kind] += [self.head_label(layer, head) for head in range(pattern.size(1)) if score[head] > threshold]
        return found

    def __getattr__(self, name):
        """A function or class of an exercise that has no step here (one added since): its
        reference, from the exercise's declaration, so that a mutant may override it by name."""
        for exercise in catalog.EXERCISES:
            if name in exercise.names:
                return exercise.reference_object(name)
        raise AttributeError(name)

    def make(self, made):
        """This reference's own copy of an object a test made in the student's process (a `Made`)."""
        if made.target == "KVCache":
            return _Cache(self, *made.args, **made.kwargs)
        if made.target in _MODULES:
            return _Module(self, made)
        module = getattr(self, made.target)(*made.args, **made.kwargs)  # a class added since: the reference's own
        if made.state is not None:
            module.load_state_dict(made.state)
        return module.to("cpu", torch.float64)


_MODULES = {"MultiHeadAttention": "multi_head_attention", "GroupedQueryAttention": "grouped_query_attention",
            "CachedGroupedQueryAttention": "cached_attention"}  # class name -> Reference's forward


class _Module:
    """A module of the exercises (by its class name), as `Reference` computes it from its steps."""

    def __init__(self, reference, made):
        self.reference, self.made = reference, made
        self.params = {name: t.detach().to("cpu", torch.float64) for name, t in made.state.items()}

    def __call__(self, x, *args, **kwargs):
        heads = self.made.args[1:3]  # (n_heads,) or (n_heads, n_kv_heads)
        if self.made.target == "MultiHeadAttention":
            heads = heads[:1]
        return getattr(self.reference, _MODULES[self.made.target])(self.params, *heads, x, *args, **kwargs)


class _Cache(ref.KVCache):
    """lumen_ref's KV cache in float64, its update and reset the reference's steps."""

    def __init__(self, reference, batch_size, n_kv_heads, d_head, max_len, dtype=None, device=None):
        super().__init__(batch_size, n_kv_heads, d_head, max_len, dtype=torch.float64)
        self.reference = reference

    def update(self, k, v):
        return self.reference.cache_update(self, k, v)

    def reset(self):
        self.reference.cache_reset(self)
