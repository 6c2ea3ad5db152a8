"""The misconceptions students have about attention: one catalogue, the only place to extend.

Each `Misconception` has a stable id, the exercises it applies to, a short teaching message that
points at the chapter's section, and its mutants: `Reference` with one step done wrong, exactly as
a student's code would do it. `Reference` is the answer key (`lumen_ref`) taken apart into
overridable steps; a mutant overrides a step, and every function and module built from that step
inherits the mistake, so one mutant gives the wrong output of `scale_scores`, `scaled_scores`,
attention and every attention module alike. `grader.diagnosis.matcher` replays a failing test's call on
the mutants and names the one whose wrong output the student's matches. A function or class of an
exercise with no step here (a new exercise) is its declared reference (`grader.catalog`), in
float64, so a new exercise's mutants override its functions by name: `{"induction_score": ...}`.

`edits` rewrite the instructor's solution into a whole student file making the mistake: that is
the seam `lumen-grade check` uses (`mutant_sources`) to prove every mutant fails its exercise.
"""

import math
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

import lumen_ref as ref
from grader import catalog

SCALE = "'Why divide by √d_k?'"
MASKING = "'Causal masking: no peeking at the future'"
SOFTMAX = "'Step 4 — Softmax: turn scores into weights'"
WALKTHROUGH = "'Implementation walkthrough in PyTorch'"
GQA = "'Grouped-query and multi-query attention'"
CACHE = "'The KV cache: a preview'"
HEADS = "'What heads learn'"
PREVIOUS = "'Previous-token heads and positional heads'"
INDUCTION = "'Induction heads'"
PICTURES = "'Attention patterns as pictures'"
COST = "'The cost: attention is quadratic in sequence length'"


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

    def scaled_dot_product_attention(self, q, k, v, mask=None, d_k=None):
        scores = self.scale_scores(self.attention_scores(q, k), d_k or q.size(-1))
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
            l, m = self.running_sum(l, *self.block_exponentials(block, m, m_new)), m_new
        return self.normalise(self.exp(x - self.exponent_shift(m)), l)

    def tiled_attention(self, q, k, v, block_size, causal=False):
        L_q, L_k = q.size(-2), k.size(-2)
        m = self.running_max_start(q[..., :1])  # (..., L_q, 1)
        l = torch.zeros_like(m)
        o = q.new_zeros(*q.shape[:-1], v.size(-1))  # (..., L_q, d_v)
        for start in self.block_starts(L_k, block_size):
            k_block, v_block = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
            s = self.scale_scores(self.attention_scores(q, k_block), q.size(-1))  # (..., L_q, b)
            if causal:
                s = s.masked_fill(~self.block_causal_mask(L_q, L_k, start, k_block.size(-2)), float("-inf"))
            m_new = self.update_max(m, s)
            rescale, p = self.block_exponentials(s, m, m_new)
            l_new = self.running_sum(l, rescale, p)
            o = self.running_output(o, rescale, p, v_block, l, l_new)
            l, m = l_new, m_new
        return self.tiled_output(o, l)

    def _gqa_projections(self, p, n_heads, n_kv_heads, x):
        return (self.split_heads(F.linear(x, p["q_proj.weight"]), n_heads),
                self.split_heads(F.linear(x, p["k_proj.weight"]), n_kv_heads),
                self.split_heads(F.linear(x, p["v_proj.weight"]), n_kv_heads))

    def _gqa_attend(self, p, n_heads, n_kv_heads, q, k, v, mask, d_model):
        n_rep = n_heads // n_kv_heads
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


# -- the catalogue ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Misconception:
    """A mistake students make, the wrong output it causes, and what to reread.

    `mutants`: one or more ways of writing the mistake, each a dict of `Reference` steps overridden.
    `includes`: ids whose wrong outputs this mistake also produces (a softmax without the max
    subtraction also gives NaN on a fully masked row): when both are found, only this one is named.
    `edits`: per exercise number, (old, new) replacements that turn the solution into this mistake.
    """

    id: str
    exercises: tuple
    message: str
    mutants: tuple
    edits: dict = field(default_factory=dict)
    includes: tuple = ()

    def mutant_classes(self):
        """The mutants, as subclasses of Reference."""
        return [type(f"Mutant_{self.id.replace('-', '_')}", (Reference,), steps) for steps in self.mutants]


def _fill(value):
    """apply_mask filling masked scores with `value` (a number, or a function of the dtype)."""
    def apply_mask(self, scores, mask):
        return scores.masked_fill(~mask, value(self.dtype) if callable(value) else value)
    return {"apply_mask": apply_mask}


def _order(order):
    return {"order_qkv": lambda self, parts: [parts[i] for i in order] if len(parts) == 3 else parts}


def _softmax(shift, guard):
    """softmax that divides e^(x - max) (or e^x: unstable) by its sum: NaN (0/0, or -inf - -inf) on an
    all -inf slice, unless `guard` divides by 1 where the sum is 0."""
    def softmax(self, x, dim=-1):
        e = torch.exp(x - x.amax(dim=dim, keepdim=True) if shift else x)
        total = e.sum(dim=dim, keepdim=True)
        return e / (total.masked_fill(total == 0, 1.0) if guard else total)
    return {"softmax": softmax}


def _student_exp(reference, x):
    """e^x in the dtype the student computed in: a mistake that raises e to large powers overflows in
    float32 long before float64."""
    return torch.exp(x.to(reference.dtype)).to(x.dtype)


def _stale_online_softmax(reference, x, block_size):
    """online_softmax writing each block out with the running max and sum of that moment."""
    m = reference.running_max_start(x[..., :1])
    l, out = torch.zeros_like(m), []
    for start in reference.block_starts(x.size(-1), block_size):
        block = x[..., start:start + block_size]
        m_new = reference.update_max(m, block)
        l, m = reference.running_sum(l, *reference.block_exponentials(block, m, m_new)), m_new
        out.append(reference.normalise(torch.exp(block - reference.exponent_shift(m)), l))
    return torch.cat(out, dim=-1) if out else torch.zeros_like(x)


SOLUTION_SDPA_SCORES = "    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)\n"
SOLUTION_SDPA_MASK = "        scores = scores.masked_fill(~mask, float(\"-inf\"))  # -inf where NOT allowed"
SOLUTION_CAUSAL = "    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)\n    # END"
SOLUTION_APPLY = "    return scores.masked_fill(~mask, float(\"-inf\"))  # (..., L_q, L_k)\n"
SOLUTION_PADDING = "    real = positions < lengths[:, None]  # (B, L): True where j < lengths[b]\n"
SOLUTION_MHA_MASK = ("        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over "
                     "(B, H)\n        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)\n")
SOLUTION_DECODE = "        mask = mask.tril(diagonal=past)  # (T_new, past + T_new)\n"
SOLUTION_PREVIOUS = "    below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  #"
SOLUTION_PREVIOUS_MEAN = "    return below.mean(dim=(0, 2))  # (H,)"
SOLUTION_STRIPE = "    stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  #"
SOLUTION_INDUCTION_MEAN = "    return stripe[..., 1:].mean(dim=(0, 2))  # (H,): queries T .. 2T-1, the second half"


def _average(average, kinds=("previous_token", "induction")):
    """head_average done as `average(weights)` for the scores of these kinds (a student may make the
    mistake in one function or in both)."""
    return {"head_average": lambda self, weights, kind: average(weights) if kind in kinds
            else weights.mean(dim=(0, 2))}


def _in_one_or_both(average):
    return tuple(_average(average, kinds) for kinds in (("previous_token",), ("induction",),
                                                        ("previous_token", "induction")))


SOLUTION_UPDATE_RETURN = "        return self.k[:, :, :end], self.v[:, :, :end]  # views, (B, Hkv, T, dh)\n"
SOLUTION_ONLINE_SUM = "        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)"
SOLUTION_TILED_SUM = "        l = l * rescale + p.sum(dim=-1, keepdim=True)"
SOLUTION_TILED_OUTPUT = "        o = o * rescale + p @ v_block"
SOLUTION_TILED_RETURN = "    return o / l.masked_fill(l == 0, 1.0)"
SOLUTION_TILED_SCORES = "        s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))"

MISCONCEPTIONS = (
    # -- exercise 1: projections ---------------------------------------------------------------------
    Misconception(
        "projection-transposed", (1,),
        "You computed x Wᵀ (nn.Linear's (out, in) layout, as F.linear does); here W is (d_model, d_k), so "
        "Q = X W_Q is x @ w_q: see 'Step 1 — Project: make a query, keys and values'",
        ({"weight_product": lambda self, x, w: x @ w.transpose(-2, -1)},),
        {1: [("    q = x @ w_q  #", "    q = x @ w_q.T  #"), ("    k = x @ w_k  #", "    k = x @ w_k.T  #"),
             ("    v = x @ w_v  #", "    v = x @ w_v.T  #")]},
    ),
    Misconception(
        "fused-split-wrong-axis", (1,),
        "You cut x @ w_qkv along dim 1, which is the features only when there are no batch dims: cut the "
        "last dim (dim=-1), where W_Q | W_K | W_V sit side by side: see " + WALKTHROUGH,
        ({"cut_fused": lambda self, qkv, d, d_model: list(qkv.chunk(3, dim=1))},),
        {1: [("    q, k, v = qkv.split(d, dim=-1)", "    q, k, v = qkv.chunk(3, dim=1)")]},
    ),
    Misconception(
        "fused-split-d-model", (1,),
        "You cut x @ w_qkv into pieces d_model wide, as the chapter's multi-head layer does; here each of "
        "W_Q, W_K, W_V has d = w_qkv.size(-1) // 3 columns: see " + WALKTHROUGH,
        ({"cut_fused": lambda self, qkv, d, d_model: list(qkv.split(d_model, dim=-1))},),
        {1: [("    q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)\n    return q, k, v",
              "    return qkv.split(x.size(-1), dim=-1)")]},
    ),
    Misconception(
        "qkv-order-swapped", (1, 6),
        "Your q, k and v come out in the wrong order: the weights are [W_Q | W_K | W_V] side by side, so the "
        "first third of the columns makes q, the second k and the last v: see " + WALKTHROUGH,
        tuple(_order(order) for order in ((0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))),
        {1: [("    q, k, v = qkv.split(d, dim=-1)", "    q, v, k = qkv.split(d, dim=-1)")],
         6: [("        q, k, v = self.qkv(x).split(D, dim=-1)", "        k, q, v = self.qkv(x).split(D, dim=-1)")]},
    ),
    # -- exercises 2 and 3: scores and their scale ------------------------------------------------------
    Misconception(
        "scores-transposed", (2, 3, 5),
        "You computed K Qᵀ: row i of the scores is query i against every key, S = Q Kᵀ of shape (L_q, L_k); "
        "transpose k, not q: see 'Step 2 — Score every key'",
        ({"attention_scores": lambda self, q, k: k @ q.transpose(-2, -1)},),
        {2: [("    return q @ k.transpose(-2, -1)", "    return k @ q.transpose(-2, -1)")]},
    ),
    Misconception(
        "scores-transpose-all-dims", (2, 3, 5),
        "k.T reverses ALL of k's dims, the batch dims too: swap only the last two, k.transpose(-2, -1) "
        "(or k.mT): see " + WALKTHROUGH,
        ({"attention_scores": lambda self, q, k: q @ k.permute(*range(k.dim() - 1, -1, -1))},),
        {2: [("    return q @ k.transpose(-2, -1)", "    return q @ k.T")]},
    ),
    Misconception(
        "scores-prescaled", (2,),
        "attention_scores is Step 2, the raw S = Q Kᵀ; yours are already divided by √d_k, which is "
        "Step 3 (exercise 3): see 'Step 2 — Score every key'",
        ({"attention_scores": lambda self, q, k: ref.attention_scores(q, k) / math.sqrt(q.size(-1))},),
        {2: [("    return q @ k.transpose(-2, -1)", "    return q @ k.transpose(-2, -1) / q.size(-1) ** 0.5")]},
    ),
    Misconception(
        "missing-scale", (3, 5, 6, 7, 8, 10),
        "Your scores are not scaled: divide Q Kᵀ by √d_k before the softmax, or wide heads make the softmax a "
        "hard argmax: see " + SCALE,
        ({"scale_scores": lambda self, scores, d_k: scores},),
        {3: [("    return scores / math.sqrt(d_k)", "    return scores")],
         5: [(SOLUTION_SDPA_SCORES, "    scores = q @ k.transpose(-2, -1)\n")],
         10: [(SOLUTION_TILED_SCORES, "        s = q @ k_block.transpose(-2, -1)")]},
    ),
    Misconception(
        "scale-by-dk", (3, 5, 6, 7, 8, 10),
        "You divided by d_k, not √d_k: see " + SCALE,
        ({"scale_scores": lambda self, scores, d_k: scores / d_k},),
        {3: [("    return scores / math.sqrt(d_k)", "    return scores / d_k")],
         5: [(SOLUTION_SDPA_SCORES, "    scores = q @ k.transpose(-2, -1) / d_k\n")]},
    ),
    Misconception(
        "scale-multiplied", (3, 5),
        "You multiplied the scores by √d_k instead of dividing: the scale must bring their spread down to "
        "about 1: see " + SCALE,
        ({"scale_scores": lambda self, scores, d_k: scores * math.sqrt(d_k)},),
        {3: [("    return scores / math.sqrt(d_k)", "    return scores * math.sqrt(d_k)")]},
    ),
    Misconception(
        "scale-by-d-model", (6, 7, 8),
        "You divided the scores by √d_model, not √d_head: each head works in d_head = d_model / n_heads "
        "dimensions, so its scores are scaled by √d_head: see 'Splitting the model width into heads'",
        ({"head_width": lambda self, d_head, d_model: d_model},),
        {6: [("        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)\n",
              "        y, _ = scaled_dot_product_attention(q * math.sqrt(self.d_head / D), k, v, mask)\n")]},
    ),
    # -- exercise 4: masks ------------------------------------------------------------------------------
    Misconception(
        "mask-inverted", (4, 5),
        "Your mask is the wrong way round: True means 'may attend' (the future and the padding are False), "
        "and -inf goes where the mask is False, masked_fill(~mask, -inf): see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: ~ref.causal_mask(L),
          "padding_mask": lambda self, lengths, L: ~ref.padding_mask(lengths, L)},
         {"apply_mask": lambda self, scores, mask: scores.masked_fill(mask, float("-inf"))}),
        {4: [(SOLUTION_CAUSAL, SOLUTION_CAUSAL.replace("torch.tril(", "~torch.tril("))],
         5: [(SOLUTION_SDPA_MASK, SOLUTION_SDPA_MASK.replace("(~mask", "(mask"))]},
    ),
    Misconception(
        "mask-excludes-diagonal", (4,),
        "Your causal mask leaves out the diagonal: token i may always read itself (torch.tril with "
        "diagonal=0), which also keeps a finite score in every row: see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: ref.causal_mask(L).tril(diagonal=-1)},),
        {4: [(SOLUTION_CAUSAL, SOLUTION_CAUSAL.replace("device=device))", "device=device), diagonal=-1)"))]},
    ),
    Misconception(
        "mask-upper-triangle", (4,),
        "Your causal mask is the upper triangle: row i is query i, and it may see keys 0..i, on and below "
        "the diagonal (torch.tril), not on and above it (torch.triu): see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: ref.causal_mask(L).T.contiguous()},),
        {4: [(SOLUTION_CAUSAL, SOLUTION_CAUSAL.replace("torch.tril(", "torch.triu("))]},
    ),
    Misconception(
        "causal-mask-missing", (4, 6, 7, 8),
        "Your attention is not causal: token i reads the tokens after it; a causal mask is True only for "
        "keys j <= i (torch.tril), and with mask=None a module attends with causal_mask(L): see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: torch.ones(L, L, dtype=torch.bool),
          "decode_mask": lambda self, T_new, past: torch.ones(T_new, past + T_new, dtype=torch.bool)},),
        {4: [(SOLUTION_CAUSAL, "    return torch.ones(L, L, dtype=torch.bool, device=device)\n    # END")],
         6: [(SOLUTION_MHA_MASK, "        y, _ = scaled_dot_product_attention(q, k, v, mask)\n")]},
    ),
    Misconception(
        "mask-ignored", (4, 5),
        "The mask you were given changes nothing: every score where it is False must become -inf before the "
        "softmax: see " + MASKING,
        ({"apply_mask": lambda self, scores, mask: torch.broadcast_tensors(scores, mask)[0].clone()},),
        {4: [(SOLUTION_APPLY, "    return scores.clone()\n")]},
    ),
    Misconception(
        "mask-fill-zero", (4, 5),
        "You set masked scores to 0 (or multiplied by the mask): e^0 = 1, so a masked key still gets weight; "
        "masked scores must be -inf, since e^-inf = 0: see " + MASKING,
        (_fill(0.0),),
        {4: [(SOLUTION_APPLY, "    return scores * mask\n")]},
    ),
    Misconception(
        "mask-fill-finite", (4, 5),
        "You filled masked scores with a large finite number instead of -inf: a row whose every key is masked "
        "then softmaxes to equal weights over keys it must not see (and -1e9 does not even fit in float16); "
        "fill with float('-inf'): see " + MASKING,
        tuple(_fill(value) for value in (-1e4, -1e5, -1e6, -1e8, -1e9, -1e10, -1e12, -1e20, -1e30,
                                         lambda dtype: torch.finfo(dtype).min)),
        {4: [(SOLUTION_APPLY, SOLUTION_APPLY.replace('float("-inf")', "-1e9"))]},
    ),
    Misconception(
        "padding-mask-missing-query-axis", (4,),
        "Your padding mask is (B, L): add the query axis, mask[:, None, :], so that it is (B, 1, L) and "
        "broadcasts over every query of the scores (B, L_q, L): see " + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths, L)[:, 0, :]},),
        {4: [("    return real[:, None, :]", "    return real")]},
    ),
    Misconception(
        "padding-mask-masks-queries", (4,),
        "Your padding mask is (B, L, 1), which masks queries; padding is about keys: the mask is (B, 1, L), the "
        "same real keys for every query of sequence b: see " + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths, L).transpose(-2, -1)},),
        {4: [("    return real[:, None, :]", "    return real[:, :, None]")]},
    ),
    Misconception(
        "padding-off-by-one", (4,),
        "Key j is real when j < lengths[b], not j <= lengths[b]: a length of 3 means keys 0, 1 and 2: see "
        + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths + 1, L)},),
        {4: [(SOLUTION_PADDING, SOLUTION_PADDING.replace("positions < lengths", "positions <= lengths"))]},
    ),
    # -- exercise 5: softmax and attention ---------------------------------------------------------------
    Misconception(
        "mask-after-softmax", (5,),
        "You masked the weights after the softmax, so the rows no longer sum to 1: set the masked scores to "
        "-inf before the softmax: see " + MASKING,
        ({"attention_weights": lambda self, scores, mask: self.softmax(scores, dim=-1) if mask is None
          else self.softmax(scores, dim=-1).masked_fill(~mask, 0.0)},),
        {5: [(SOLUTION_SDPA_MASK, "        pass  # masked after the softmax instead"),
             ("    weights = softmax(scores, dim=-1)  #", "    weights = softmax(scores, dim=-1) if mask is None else "
              "softmax(scores, dim=-1).masked_fill(~mask, 0.0)  #")]},
    ),
    Misconception(
        "softmax-wrong-dim", (5,),
        "Your weights sum to 1 over the queries (dim=-2): each query's row must sum to 1 over the keys, "
        "softmax(scores, dim=-1): see " + SOFTMAX,
        ({"attention_weights": lambda self, scores, mask: self.softmax(
            scores if mask is None else self.apply_mask(scores, mask), dim=-2)},),
        {5: [("    weights = softmax(scores, dim=-1)  #", "    weights = softmax(scores, dim=-2)  #")]},
    ),
    Misconception(
        "softmax-ignores-dim", (5,),
        "Your softmax always normalises the last axis: use its `dim` argument for the max and the sum: see "
        + SOFTMAX,
        ({"softmax": lambda self, x, dim=-1: ref.softmax(x, dim=-1)},),
        {5: [("    x_max = x.amax(dim=dim, keepdim=True)", "    x_max = x.amax(dim=-1, keepdim=True)"),
             ("    total = e.sum(dim=dim, keepdim=True)", "    total = e.sum(dim=-1, keepdim=True)")]},
    ),
    Misconception(
        "softmax-unstable", (5,),
        "Your softmax is not stable: e^x overflows to inf for large scores and inf / inf is NaN; subtract each "
        "row's max before torch.exp (it cancels out), and give a row of only -inf zeros, not 0/0: see " + SOFTMAX,
        (_softmax(shift=False, guard=False), _softmax(shift=False, guard=True)),
        {5: [("    e = torch.exp(x - x_max)", "    e = torch.exp(x)")]},
        includes=("softmax-nan-on-masked-row",),
    ),
    Misconception(
        "softmax-nan-on-masked-row", (5, 6, 7),
        "A row whose every key is masked comes out NaN (-inf - (-inf), then 0/0): it must give zero weights "
        "and a zero output; shift by 0 where the max is -inf and divide by 1 where the sum is 0: see " + MASKING,
        (_softmax(shift=True, guard=False),),
        {5: [("    x_max = x_max.masked_fill(x_max == float(\"-inf\"), 0.0)", "    pass"),
             ("    return e / total.masked_fill(total == 0, 1.0)", "    return e / total")],
         7: [("        weights = weights.masked_fill(~mask, 0.0)", "        pass")]},
    ),
    # -- exercise 6: multi-head attention ------------------------------------------------------------
    Misconception(
        "split-heads-without-transpose", (6, 7, 8),
        "You reshaped (B, L, D) straight into (B, H, L, d_head), which mixes tokens across heads: view it as "
        "(B, L, H, d_head), then transpose(1, 2): see " + WALKTHROUGH,
        ({"split_heads": lambda self, x, n_heads: x.reshape(x.size(0), n_heads, x.size(1), -1)},),
        {6: [("    x = x.view(B, L, n_heads, D // n_heads)  #",
              "    return x.reshape(B, n_heads, L, D // n_heads)  #")]},
    ),
    Misconception(
        "merge-heads-without-transpose", (6, 7, 8),
        "You reshaped (B, H, L, d_head) straight into (B, L, D), which mixes tokens across heads: transpose(1, "
        "2) back to (B, L, H, d_head) first, then .contiguous().view(B, L, D): see " + WALKTHROUGH,
        ({"merge_heads": lambda self, x: x.reshape(x.size(0), x.size(2), -1)},),
        {6: [("    x = x.transpose(1, 2).contiguous()  #", "    x = x.contiguous()  #")]},
    ),
    Misconception(
        "explicit-mask-ignored", (6, 7),
        "Your forward attends with its own causal mask even when it is given one: use causal_mask(L) only "
        "when mask is None, and the given mask otherwise: see " + WALKTHROUGH,
        ({"forward_mask": lambda self, mask, L: self.causal_mask(L)},),
        {6: [(SOLUTION_MHA_MASK, "        y, _ = scaled_dot_product_attention(q, k, v, causal_mask(L, x.device))\n")]},
    ),
    # -- exercise 7: grouped-query attention --------------------------------------------------------------
    Misconception(
        "gqa-repeat-tiles", (7, 8),
        "Your query heads read the KV heads tiled, [0, 1, 0, 1, …] (what .repeat gives): query head j reads KV "
        "head j mod n_kv_heads; it must read KV head j // n_rep, [0, 0, 1, 1, …], so that neighbouring query heads "
        "share a KV head (repeat_interleave along dim 1): see " + GQA,
        ({"repeat_kv": lambda self, x, n_rep: x.repeat(1, n_rep, 1, 1)},),
        {7: [("    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)\n    # END",
              "    return x.repeat(1, n_rep, 1, 1)\n    # END")]},
    ),
    Misconception(
        "repeat-kv-wrong-dim", (7,),
        "You repeated along another dim than the heads: each KV head is repeated n_rep times along dim 1, "
        "(B, H_kv, L, d) -> (B, H_kv·n_rep, L, d): see " + GQA,
        tuple({"repeat_kv": lambda self, x, n_rep, dim=dim: x.repeat_interleave(n_rep, dim=dim)}
              for dim in (0, 2, 3)),
        {7: [("    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)\n    # END",
              "    return x.repeat_interleave(n_rep, dim=2)\n    # END")]},
    ),
    # -- exercise 8: the KV cache -------------------------------------------------------------------
    Misconception(
        "kv-cache-ignores-past", (8,),
        "Your new tokens attend only to themselves: they must attend to ALL the keys and values "
        "cache.update(k, v) returns, the cached tokens' included: see " + CACHE,
        ({"decode_keys": lambda self, cache, k, v: (cache.update(k, v), (k, v))[1],
          "decode_mask": lambda self, T_new, past: torch.ones(T_new, T_new, dtype=torch.bool).tril()},),
        {8: [("            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)", "            cache.update(k, v)"),
             ("        mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)",
              "        mask = torch.ones(T_new, T_new, dtype=torch.bool, device=x.device)"),
             (SOLUTION_DECODE, "        mask = mask.tril()\n")]},
    ),
    Misconception(
        "kv-cache-not-updated", (8,),
        "Your forward never adds the new tokens to the cache, so the next call has nothing to attend to: "
        "k, v = cache.update(k, v) stores them and gives back every token cached so far: see " + CACHE,
        ({"decode_keys": lambda self, cache, k, v: (k, v),
          "decode_mask": lambda self, T_new, past: torch.ones(T_new, T_new, dtype=torch.bool).tril()},),
        {8: [("            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)", "            pass")]},
        includes=("kv-cache-ignores-past",),
    ),
    Misconception(
        "kv-cache-causal-offset", (8,),
        "The causal mask among your new tokens sits in the wrong (top-left) corner: new token i is at "
        "position past + i and sees keys 0 .. past + i, a (T_new, past + T_new) mask tril(diagonal=past): see "
        + CACHE,
        ({"decode_mask": lambda self, T_new, past: torch.ones(T_new, past + T_new, dtype=torch.bool).tril()
          if T_new > 1 else torch.ones(1, past + 1, dtype=torch.bool)},
         {"decode_mask": lambda self, T_new, past: torch.ones(T_new, past + T_new, dtype=torch.bool).tril()}),
        {8: [(SOLUTION_DECODE, "        mask = mask.tril()\n")]},
    ),
    Misconception(
        "kv-cache-update-returns-new", (8,),
        "cache.update(k, v) returned only the new tokens: it must return ALL the keys and values cached so "
        "far, (B, H_kv, T, d_head) with T = len(cache), or the new tokens cannot attend to the past: see " + CACHE,
        ({"cache_update": lambda self, cache, k, v: (ref.KVCache.update(cache, k, v), (k, v))[1]},),
        {8: [(SOLUTION_UPDATE_RETURN, "        return k, v\n")]},
        includes=("kv-cache-ignores-past",),
    ),
    Misconception(
        "kv-cache-reset-keeps-length", (8,),
        "cache.reset() did not forget the cached tokens: set the number of tokens cached back to 0 (the "
        "storage may stay): see " + CACHE,
        ({"cache_reset": lambda self, cache: None},),
        {8: [("        self.length = 0\n        # END SOLUTION\n\n    def update",
              "        pass\n        # END SOLUTION\n\n    def update")]},
    ),
    Misconception(
        "kv-cache-bytes-missing-factor-2", (8,),
        "The cache holds keys AND values: multiply by 2: see " + CACHE,
        ({"kv_cache_bytes": lambda self, *args, **kwargs: ref.kv_cache_bytes(*args, **kwargs) // 2},),
        {8: [("    return 2 * n_layers * n_kv_heads", "    return n_layers * n_kv_heads")]},
    ),
    Misconception(
        "kv-cache-bytes-missing-batch", (8,),
        "Every sequence in the batch has a cache of its own: multiply by batch_size: see " + CACHE,
        ({"kv_cache_bytes": lambda self, *args, **kwargs: ref.kv_cache_bytes(
            *args, **{**kwargs, "batch_size": 1})},),
        {8: [("* seq_len * batch_size *", "* seq_len *")]},
    ),
    Misconception(
        "kv-cache-bytes-counts-values", (8,),
        "That is how many numbers the cache holds, not how many bytes: multiply by bytes_per_value: see " + CACHE,
        ({"kv_cache_bytes": lambda self, *args, **kwargs: ref.kv_cache_bytes(
            *args, **{**kwargs, "bytes_per_value": 1})},),
        {8: [("* batch_size * bytes_per_value", "* batch_size")]},
    ),
    # -- exercise 9: what heads learn ----------------------------------------------------------------
    Misconception(
        "previous-token-reads-self", (9,),
        "Your previous-token score reads the main diagonal, key i, the query's own token: the previous "
        "token of query i is key i-1, the diagonal just below, pattern.diagonal(offset=-1, dim1=-2, dim2=-1): "
        "see " + PREVIOUS,
        ({"previous_token_weights": lambda self, pattern: pattern.diagonal(dim1=-2, dim2=-1)},
         {"previous_token_weights": lambda self, pattern: pattern.diagonal(dim1=-2, dim2=-1)[..., 1:]}),
        {9: [(SOLUTION_PREVIOUS, "    below = pattern.diagonal(dim1=-2, dim2=-1)  #")]},
    ),
    Misconception(
        "previous-token-reads-next", (9,),
        "Your previous-token score reads key i+1, above the diagonal, where a causal pattern is 0: a "
        "positive offset is above the diagonal; key i-1 from query i is offset=-1: see " + PREVIOUS,
        ({"previous_token_weights": lambda self, pattern: pattern.diagonal(offset=1, dim1=-2, dim2=-1)},),
        {9: [(SOLUTION_PREVIOUS, SOLUTION_PREVIOUS.replace("offset=-1", "offset=1"))]},
    ),
    Misconception(
        "previous-token-counts-query-0", (9,),
        "Your previous-token score also counts query 0, which has no previous token (its weight on key -1 "
        "is 0), so it comes out (L-1)/L of the right one: average over the queries i = 1 .. L-1 only: see "
        + PREVIOUS,
        ({"previous_token_weights": lambda self, pattern: F.pad(pattern.diagonal(offset=-1, dim1=-2, dim2=-1),
                                                                (1, 0))},),
        {9: [(SOLUTION_PREVIOUS_MEAN, "    return below.sum(dim=(0, 2)) / (pattern.size(0) * pattern.size(-1))")]},
    ),
    Misconception(
        "induction-offset-off-by-one", (9,),
        "Your induction score reads key i - seq_len, the earlier copy of the query's own token: an induction "
        "head reads the token AFTER it, key i - seq_len + 1, to predict what comes next: see " + INDUCTION,
        ({"induction_weights": lambda self, pattern, seq_len: pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1)},),
        {9: [(SOLUTION_STRIPE, SOLUTION_STRIPE.replace("offset=1 - seq_len", "offset=-seq_len")),
             (SOLUTION_INDUCTION_MEAN, "    return stripe.mean(dim=(0, 2))  # (H,)")]},
    ),
    Misconception(
        "induction-counts-first-half", (9,),
        "Your induction score also counts queries of the first half, which have no earlier copy of their "
        "token (the full diagonal offset=1-seq_len starts at query seq_len-1, on key 0): average over the "
        "second half only, queries seq_len .. 2*seq_len-1: see " + INDUCTION,
        ({"induction_weights": lambda self, pattern, seq_len: pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)},
         {"induction_weights": lambda self, pattern, seq_len: F.pad(
             pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:], (seq_len, 0))}),
        {9: [(SOLUTION_INDUCTION_MEAN, "    return stripe.mean(dim=(0, 2))  # (H,)")]},
    ),
    Misconception(
        "diagonal-of-the-wrong-dims", (9,),
        "torch.diagonal(pattern, offset) takes its diagonal across dims 0 and 1, the batch and the heads, "
        "unless told otherwise: a pattern's queries and keys are its last two dims, so pass dim1=-2, dim2=-1: "
        "see " + PICTURES,
        ({"previous_token_weights": lambda self, pattern: pattern.diagonal(offset=-1)},
         {"induction_weights": lambda self, pattern, seq_len: pattern.diagonal(offset=1 - seq_len)[..., 1:]},
         {"previous_token_weights": lambda self, pattern: pattern.diagonal(offset=-1),
          "induction_weights": lambda self, pattern, seq_len: pattern.diagonal(offset=1 - seq_len)[..., 1:]}),
        {9: [(SOLUTION_PREVIOUS, "    below = pattern.diagonal(offset=-1)  #")]},
    ),
    Misconception(
        "score-averaged-over-wrong-axes", (9,),
        "Your score does not average over the right axes: a pattern is (B, H, L, L), and a score keeps one "
        "number per head, the mean over every sequence of the batch (dim 0) and every query counted, (H,): "
        "see " + HEADS,
        _in_one_or_both(lambda weights: weights.mean(dim=(1, 2)))
        + _in_one_or_both(lambda weights: weights.mean(dim=-1))
        + _in_one_or_both(lambda weights: weights.mean(dim=(0, 1)))
        + _in_one_or_both(lambda weights: weights.mean())
        + _in_one_or_both(lambda weights: weights[0].mean(dim=-1)),
        {9: [(SOLUTION_PREVIOUS_MEAN, "    return below.mean(dim=-1)"),
             (SOLUTION_INDUCTION_MEAN, "    return stripe[..., 1:].mean(dim=-1)")]},
    ),
    Misconception(
        "score-summed-not-averaged", (9,),
        "Your score is a sum of weights, not their mean, so it grows with the batch and the length: divide by "
        "how many weights you added (B times the queries counted), .mean(dim=(0, 2)): see " + HEADS,
        _in_one_or_both(lambda weights: weights.sum(dim=(0, 2))),
        {9: [(SOLUTION_PREVIOUS_MEAN, "    return below.sum(dim=(0, 2))"),
             (SOLUTION_INDUCTION_MEAN, "    return stripe[..., 1:].sum(dim=(0, 2))")]},
    ),
    Misconception(
        "find-heads-head-layer-swapped", (9,),
        "Your heads are (head, layer): find_heads lists (layer, head) pairs, the layer first, as you would "
        "index patterns[layer][:, head]: see " + PICTURES,
        ({"head_label": lambda self, layer, head: (head, layer)},),
        {9: [("[(layer, head) for head in range(", "[(head, layer) for head in range(")]},
    ),
    # -- exercise 10: attention without the (L, L) matrix -------------------------------------------------
    Misconception(
        "online-sum-not-rescaled", (10,),
        "When a block raises the running max, the running sum still holds e^(s - m_old) of the earlier "
        "entries: multiply it by e^(m_old - m_new) before adding the block's e^(s - m_new), or the earlier "
        "entries weigh too much: see " + COST,
        ({"running_sum": lambda self, l, rescale, p: l + p.sum(dim=-1, keepdim=True)},),
        {10: [(SOLUTION_ONLINE_SUM, "        l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)"),
              (SOLUTION_TILED_SUM, "        l = l + p.sum(dim=-1, keepdim=True)")]},
    ),
    Misconception(
        "online-output-not-rescaled", (10,),
        "When a block raises the running max, the running output still holds e^(s - m_old) v of the earlier "
        "keys: multiply it by e^(m_old - m_new), as the running sum, before adding the block's e^(s - m_new) "
        "@ v: see " + COST,
        ({"running_output": lambda self, o, rescale, p, v_block, l_old, l_new: o + p @ v_block},),
        {10: [(SOLUTION_TILED_OUTPUT, "        o = o + p @ v_block")]},
    ),
    Misconception(
        "online-nothing-rescaled", (10,),
        "When a block raises the running max, neither your running sum nor your running output is rescaled: "
        "both were summed with the old max, so multiply both by e^(m_old - m_new) before adding the block's "
        "terms: see " + COST,
        ({"running_sum": lambda self, l, rescale, p: l + p.sum(dim=-1, keepdim=True),
          "running_output": lambda self, o, rescale, p, v_block, l_old, l_new: o + p @ v_block},),
        {10: [(SOLUTION_TILED_SUM, "        l = l + p.sum(dim=-1, keepdim=True)"),
              (SOLUTION_TILED_OUTPUT, "        o = o + p @ v_block")]},
        includes=("online-sum-not-rescaled", "online-output-not-rescaled"),
    ),
    Misconception(
        "online-max-not-kept", (10,),
        "Your running max is each block's own max, not the largest seen so far: after a block of small "
        "scores, e^(s - m) of the earlier, larger ones overflows. Keep m_new = max(m, max of the block): "
        "see " + COST,
        ({"update_max": lambda self, m, block: block.amax(dim=-1, keepdim=True),
          "exp": _student_exp},),
        {10: [("        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))",
               "        m_new = s.amax(dim=-1, keepdim=True)")]},
    ),
    Misconception(
        "online-block-uses-old-max", (10,),
        "You exponentiate a block with the running max from before it: e^(s - m_old), where s may exceed "
        "m_old (it overflows) and the terms no longer match the sum's shift. Update the max first, then take "
        "e^(s - m_new) and rescale the running values by e^(m_old - m_new): see " + COST,
        ({"block_exponentials": lambda self, block, m_old, m_new: (
            self.exp(m_old - self.exponent_shift(m_new)), self.exp(block - self.exponent_shift(m_old))),
          "exp": _student_exp},),
        {10: [("        p = torch.exp(s - shift)  # (..., L_q, b)",
               "        p = torch.exp(s - m.masked_fill(m == float(\"-inf\"), 0.0))")]},
    ),
    Misconception(
        "blocks-drop-last-partial", (10,),
        "Your loop over the blocks drops the last one when block_size does not divide the length (and every "
        "block when block_size is larger): the last block may be shorter, and range(0, n, block_size) with "
        "x[..., start:start + block_size] covers every entry: see " + COST,
        ({"block_starts": lambda self, n, block_size: range(0, n - block_size + 1, block_size)},),
        {10: [("    for start in range(0, x.size(-1), block_size):",
               "    for start in range(0, x.size(-1) - block_size + 1, block_size):"),
              ("    for start in range(0, L_k, block_size):", "    for start in range(0, L_k - block_size + 1, block_size):")]},
    ),
    Misconception(
        "running-max-starts-at-zero", (10,),
        "Your running max starts at 0: where every score is below -745 (float64; -104 in float32), e^(s - 0) "
        "underflows to 0 and the sum is 0. Start it at -inf, so that the first block's max replaces it "
        "(and shift by 0 while it is still -inf): see " + COST,
        ({"running_max_start": lambda self, like: torch.zeros_like(like)},
         {"running_max_start": lambda self, like: torch.zeros_like(like), "normalise": lambda self, e, l: e / l}),
        {10: [('    m = torch.full_like(q[..., :1], float("-inf"))', "    m = torch.zeros_like(q[..., :1])")]},
        includes=("online-nan-on-empty-row",),
    ),
    Misconception(
        "online-nan-on-empty-row", (10,),
        "A row with no finite score yet (all -inf, or a causal query that sees no key in a block) gives NaN: "
        "e^(-inf - (-inf)) and 0/0 are NaN. Shift by 0 while the running max is -inf, and divide by 1 where "
        "the sum is 0, so that a query that sees no key gets zeros: see " + COST,
        ({"exponent_shift": lambda self, m: m},
         {"normalise": lambda self, e, l: e / l}),
        {10: [(SOLUTION_TILED_RETURN, "    return o / l")]},
    ),
    Misconception(
        "online-divides-inside-loop", (10,),
        "You divide the running output by the running sum inside the loop, but what was already divided by "
        "the old sum is never multiplied back: keep o unnormalised (o·e^(m_old - m_new) + e^(s - m_new) @ v) and "
        "divide by l once, after the last block: see " + COST,
        ({"running_output": lambda self, o, rescale, p, v_block, l_old, l_new:
          (o * rescale + p @ v_block) / l_new.masked_fill(l_new == 0, 1.0),
          "tiled_output": lambda self, o, l: o},),
        {10: [(SOLUTION_TILED_OUTPUT, "        o = (o * rescale + p @ v_block) / l.masked_fill(l == 0, 1.0)"),
              (SOLUTION_TILED_RETURN, "    return o")]},
    ),
    Misconception(
        "tiled-causal-block-positions", (10,),
        "Your causal mask compares the query's position with the key's place in its block (0 .. block_size - 1), "
        "not in the sequence: the block starting at `start` holds keys start .. start + block_size - 1: see "
        + COST,
        ({"block_causal_mask": lambda self, L_q, L_k, start, width:
          torch.arange(width) <= torch.arange(L_k - L_q, L_k)[:, None]},),
        {10: [("            key = torch.arange(start, start + k_block.size(-2), device=q.device)",
               "            key = torch.arange(k_block.size(-2), device=q.device)")]},
    ),
    Misconception(
        "tiled-causal-top-left", (10,),
        "Your causal mask puts query i at position i; with L_q queries and L_k keys the queries are the last "
        "L_q positions, as in the KV cache: query i sits at L_k - L_q + i and sees keys 0 .. L_k - L_q + i "
        "(and with L_q > L_k the first queries see none): see " + CACHE,
        ({"block_causal_mask": lambda self, L_q, L_k, start, width:
          torch.arange(start, start + width) <= torch.arange(L_q)[:, None]},),
        {10: [("    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]",
               "    position = torch.arange(L_q, device=q.device)[:, None]")]},
    ),
    Misconception(
        "tiled-causal-excludes-diagonal", (10,),
        "Your causal mask hides each query's own key: the key at the query's position may be read (key "
        "position <= query position, mask where it is >), which also keeps a finite score for every query that "
        "has a key: see " + MASKING,
        ({"block_causal_mask": lambda self, L_q, L_k, start, width:
          torch.arange(start, start + width) < torch.arange(L_k - L_q, L_k)[:, None]},),
        {10: [("            s = s.masked_fill(key > position, float(\"-inf\"))",
               "            s = s.masked_fill(key >= position, float(\"-inf\"))")]},
    ),
    Misconception(
        "online-softmax-stale-normaliser", (10,),
        "You wrote each block's weights with the running max and sum as they were after that block, but later "
        "blocks change both: the weights need the final max and sum, so finish the pass over every block "
        "first, then compute e^(x - m) / l for the whole row: see " + COST,
        ({"online_softmax": _stale_online_softmax},),
        {10: [("    for start in range(0, x.size(-1), block_size):", "    out = []\n    for start in range(0, x.size(-1), block_size):"),
              ("        m = m_new\n    shift = m.masked_fill(m == float(\"-inf\"), 0.0)  # (..., 1)\n"
               "    return torch.exp(x - shift) / l.masked_fill(l == 0, 1.0)",
               "        m = m_new\n        out.append(torch.exp(block - shift) / l.masked_fill(l == 0, 1.0))\n"
               "    return torch.cat(out, dim=-1)")]},
    ),
)

BY_ID = {misconception.id: misconception for misconception in MISCONCEPTIONS}


def for_exercise(number):
    """The misconceptions that apply to exercise `number`, in catalogue order."""
    return [misconception for misconception in MISCONCEPTIONS if number in misconception.exercises]


def mutant_source(misconception, number, solution):
    """The solution's text with the misconception's edits for exercise `number`; None if an edit does
    not find its text (the solution changed: tests/diagnosis/test_diagnoses.py catches that)."""
    for old, new in misconception.edits[number]:
        if old not in solution:
            return None
        solution = solution.replace(old, new, 1)
    return solution


def mutant_sources(solutions_dir):
    """(misconception id, exercise, a whole student file making that mistake), for `lumen-grade check`."""
    for misconception in MISCONCEPTIONS:
        for number in misconception.edits:
            exercise = catalog.find(str(number))
            solution = (Path(solutions_dir) / exercise.file_name).read_text(encoding="utf-8")
            source = mutant_source(misconception, number, solution)
            yield misconception.id, exercise, solution if source is None else source
