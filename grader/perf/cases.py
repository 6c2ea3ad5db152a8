"""The performance cases: what is timed, on which inputs, at which size. Read on both sides.

The judge (`grader.perf.judge`) builds a case's verification inputs from the seed to compute the
reference's answer in float64; the child (`grader.perf.child`) builds the same inputs from the same
seed to run and time the student's code. The torch functions the inputs are drawn with are
captured when this module is imported, which in the child is before any student file is loaded.
"""

from typing import NamedTuple  # not dataclasses: this module is imported on every run, and they cost 1 ms each

import torch

from grader.perf.rounds import MAX_ROUNDS

_Generator = torch.Generator
_randn = torch.randn
_randint = torch.randint


def _shape(shape):
    return f"({', '.join(map(str, shape))}{',' * (len(shape) == 1)})"


class Randn(NamedTuple):
    """A float32 tensor of standard normal values (times `scale`)."""

    shape: tuple
    scale: float = 1.0

    def make(self, gen, device):
        return (_randn(self.shape, generator=gen) * self.scale).to(device)

    def __str__(self):
        return _shape(self.shape)


class CausalScores(NamedTuple):
    """Random scores (..., L, L) with -inf above the diagonal, as a causal mask leaves them."""

    shape: tuple

    def make(self, gen, device):
        scores = _randn(self.shape, generator=gen)
        return scores.masked_fill(~CausalMask(self.shape[-1]).make(gen, "cpu"), float("-inf")).to(device)

    def __str__(self):
        return f"causal scores {_shape(self.shape)}"


class CausalMask(NamedTuple):
    """The (L, L) bool causal mask."""

    L: int

    def make(self, gen, device):
        return torch.ones(self.L, self.L, dtype=torch.bool).tril().to(device)

    def __str__(self):
        return f"causal mask {_shape((self.L, self.L))}"


class Lengths(NamedTuple):
    """(B,) int64 sequence lengths between 1 and L, for padding masks."""

    B: int
    L: int

    def make(self, gen, device):
        return _randint(1, self.L + 1, (self.B,), generator=gen).to(device)

    def __str__(self):
        return f"lengths {_shape((self.B,))}"


class Case(NamedTuple):
    """One call timed: `target` (a function, or a module class built with `init`) on `args`."""

    target: str
    args: tuple  # input specs (Randn, ...) made fresh each round, or plain values passed as they are
    init: tuple = None  # constructor arguments: the target is an nn.Module, weights drawn from the seed
    fused: bool = False  # time torch's fused attention in the reference's place too

    @property
    def label(self):
        made = f"{self.target}({', '.join(map(str, self.init))})" if self.init else self.target
        return f"{made} on {', '.join(map(str, self.args))}"


class Decode(NamedTuple):
    """Generation with a KV cache: decode steps timed at several cached lengths."""

    init: tuple  # (d_model, n_heads, n_kv_heads)
    batch: int
    lengths: tuple  # tokens cached when the steps are timed, ascending
    fused: bool = True
    target: str = "CachedGroupedQueryAttention"

    @property
    def label(self):
        d_model, n_heads, n_kv_heads = self.init
        return (f"decode steps of {self.target}({d_model}, {n_heads}, {n_kv_heads}) with "
                f"{', '.join(map(str, self.lengths))} tokens cached")

    @property
    def max_len(self):
        return self.lengths[-1] + MAX_ROUNDS + 8


class Allocations(NamedTuple):
    """Not timed: the largest tensor one call of `target` allocates, measured at several lengths,
    on q, k, v (B, H, L, d) with the given block size: exercise 10's memory verdict."""

    target: str
    shape: tuple  # (B, H, d)
    lengths: tuple  # ascending
    block: int
    causal: bool = True
    fused: bool = False
    init = None  # a function, not a module

    @property
    def label(self):
        B, H, d = self.shape
        return (f"the largest tensor {self.target} allocates on q, k, v ({B}, {H}, L, {d}), block_size={self.block}, "
                f"at L = {', '.join(map(str, self.lengths))}")

    def args(self, length, gen, device):
        """q, k, v of `length` tokens, the block size and causal: the call measured at that length."""
        B, H, d = self.shape
        return (*(Randn((B, H, length, d)).make(gen, device) for _ in "qkv"), self.block, self.causal)


class Sizes(NamedTuple):
    """The shapes of one device's cases."""

    tokens: tuple  # (B, L, d_model): exercise 1's projections
    scores: tuple  # (B, heads, L, d_head): the attention steps, exercises 2-5
    layer: tuple  # (B, L, d_model, heads, KV heads): the attention layers, exercises 6 and 7
    small: tuple  # the layers again on one short sequence, where every extra operation shows
    decode: tuple  # (d_model, heads, KV heads, B): the KV cache, exercise 8
    lengths: tuple  # tokens cached when its decode steps are timed


# One intra-op CPU thread must time a whole exercise in about a second; a GPU runs the example of
# the issue (B=4, L=512, d_model=512, 8 heads) and decodes up to 4096 cached tokens. The layers are
# timed at two sizes because their typical slow paths show at different ones: recomputing a
# projection where projections dominate (a batch), a Python loop over the heads where the cost
# of each operation does (one short sequence). The KV cache is the chapter's Llama-2 example in
# miniature: as many KV heads as heads, so that recomputing the past costs what it really does.
SIZES = {
    "cpu": Sizes((4, 128, 256), (4, 8, 128, 32), (4, 64, 512, 8, 2), (1, 16, 256, 16, 4),
                 (1024, 8, 8, 1), (128, 256, 512, 1024)),
    "cuda": Sizes((4, 512, 512), (4, 8, 512, 64), (4, 512, 512, 8, 2), (1, 16, 256, 16, 4),
                  (2048, 16, 16, 4), (512, 1024, 2048, 4096)),
}


def cases(exercise_id, device):
    """The cases timed for an exercise on a device ("cpu" or "cuda"), in order."""
    s = SIZES[device]
    B, L, D = s.tokens
    x, w = Randn((B, L, D)), Randn((D, D), D ** -0.5)  # weights keep outputs O(1): float32 stays accurate
    B, H, L, d_head = s.scores
    q, scores = Randn((B, H, L, d_head)), Randn((B, H, L, L))
    *model, batch = s.decode
    return {
        "exercise1": [Case("project", (x, w, w, w)),
                      Case("fused_project", (x, Randn((D, 3 * D), D ** -0.5)))],
        "exercise2": [Case("attention_scores", (q, q))],
        "exercise3": [Case("scale_scores", (scores, d_head)), Case("scaled_scores", (q, q))],
        "exercise4": [Case("causal_mask", (L,)), Case("apply_mask", (scores, CausalMask(L))),
                      Case("padding_mask", (Lengths(B, L), L))],
        "exercise5": [Case("softmax", (CausalScores((B, H, L, L)),)),
                      Case("scaled_dot_product_attention", (q, q, q, CausalMask(L)), fused=True)],
        "exercise6": [Case("MultiHeadAttention", (Randn((B, L, D)),), init=(D, H), fused=True)
                      for B, L, D, H, _ in (s.layer, s.small)],
        "exercise7": [Case("GroupedQueryAttention", (Randn((B, L, D)),), init=(D, H, H_kv), fused=True)
                      for B, L, D, H, H_kv in (s.layer, s.small)],
        "exercise8": [Decode(tuple(model), batch, s.lengths)],
    }.get(exercise_id, [])


# -- building the calls -------------------------------------------------------------------------


def generator(seed):
    gen = _Generator()
    gen.manual_seed(seed)
    return gen


def make_args(case, gen, device):
    return tuple(arg.make(gen, device) if hasattr(arg, "make") else arg for arg in case.args)


def weights(case, reference, seed):
    """The module's state dict, drawn from the seed (scaled 1/√fan_in), named as the reference's."""
    gen = generator(seed)
    state = getattr(reference, case.target)(*case.init).state_dict()
    return {name: _randn(value.shape, generator=gen) * value.shape[-1] ** -0.5 for name, value in state.items()}


def build(case, impl, state, device, dtype=torch.float32):
    """What to call for `case` in `impl` (the student's module or a reference namespace)."""
    target = getattr(impl, case.target)
    if case.init is None:
        return target
    module = target(*case.init)
    module.load_state_dict(state)
    return module.to(device=device, dtype=dtype)


def decode_program(case, module, cache_class, gen, device, dtype=torch.float32):
    """The verification run of a Decode case: a prefill, two single-token steps, then a chunk of
    three. Returns the outputs of every call, concatenated along the tokens."""
    d_model, n_heads, n_kv_heads = case.init
    cache = cache_class(case.batch, n_kv_heads, d_model // n_heads, case.max_len, dtype=dtype, device=device)
    chunks = [Randn((case.batch, n, d_model)).make(gen, device).to(dtype) for n in (case.lengths[0], 1, 1, 3)]
    return torch.cat([module(x, cache) for x in chunks], dim=1)

