"""The kinds of performance case, and their inputs: what an exercise's declaration times. Both sides.

Each exercise declares its cases and their sizes (`grader.catalog`, `Perf`) with the specs below.
The judge (`grader.perf.judge`) builds a case's verification inputs from the seed to compute the
reference's answer in float64; the child (`grader.perf.child`) builds the same inputs from the same
seed to run and time the student's code.

No torch at import (the catalogue, which `lumen-grade --help` reads, imports this module): the torch
functions the inputs are made with are captured by `real_torch`, which `grader.perf.child` calls on
import: in the child, before any student file is loaded (which could patch them).
"""

import types
from typing import NamedTuple  # not dataclasses: this module is imported on every run, and they cost 1 ms each

from grader.perf.rounds import MAX_ROUNDS

_real = None


def real_torch():
    """torch's own functions and dtypes the inputs are made with, captured at the first call."""
    global _real
    if _real is None:
        import torch

        _real = types.SimpleNamespace(Generator=torch.Generator, randn=torch.randn, randint=torch.randint,
                                      ones=torch.ones, cat=torch.cat, float32=torch.float32, bool=torch.bool)
    return _real


def _shape(shape):
    return f"({', '.join(map(str, shape))}{',' * (len(shape) == 1)})"


class Randn(NamedTuple):
    """A float32 tensor of standard normal values (times `scale`)."""

    shape: tuple
    scale: float = 1.0

    def make(self, gen, device):
        return (real_torch().randn(self.shape, generator=gen) * self.scale).to(device)

    def __str__(self):
        return _shape(self.shape)


class CausalScores(NamedTuple):
    """Random scores (..., L, L) with -inf above the diagonal, as a causal mask leaves them."""

    shape: tuple

    def make(self, gen, device):
        scores = real_torch().randn(self.shape, generator=gen)
        return scores.masked_fill(~CausalMask(self.shape[-1]).make(gen, "cpu"), float("-inf")).to(device)

    def __str__(self):
        return f"causal scores {_shape(self.shape)}"


class CausalMask(NamedTuple):
    """The (L, L) bool causal mask."""

    L: int

    def make(self, gen, device):
        real = real_torch()
        return real.ones(self.L, self.L, dtype=real.bool).tril().to(device)

    def __str__(self):
        return f"causal mask {_shape((self.L, self.L))}"


class Length(NamedTuple):
    """A length between `low` and `high`, drawn afresh each round: a case whose only input is a
    size must not repeat it (a function that caches its answer per size would time nothing)."""

    low: int
    high: int

    def make(self, gen, device):
        return int(real_torch().randint(self.low, self.high + 1, (1,), generator=gen))

    def __str__(self):
        return f"L from {self.low} to {self.high}"


class Lengths(NamedTuple):
    """(B,) int64 sequence lengths between 1 and L, for padding masks."""

    B: int
    L: int

    def make(self, gen, device):
        return real_torch().randint(1, self.L + 1, (self.B,), generator=gen).to(device)

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
    fused: bool = False  # torch's fused attention timed too: its cache filled as well, a third more of the case's cost
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


# -- building the calls -------------------------------------------------------------------------


def generator(seed):
    gen = real_torch().Generator()
    gen.manual_seed(seed)
    return gen


def make_args(case, gen, device):
    return tuple(arg.make(gen, device) if hasattr(arg, "make") else arg for arg in case.args)


def weights(case, reference, seed):
    """The module's state dict, drawn from the seed (scaled 1/√fan_in), named as the reference's."""
    gen = generator(seed)
    state = getattr(reference, case.target)(*case.init).state_dict()
    return {name: real_torch().randn(value.shape, generator=gen) * value.shape[-1] ** -0.5
            for name, value in state.items()}


def build(case, impl, state, device, dtype=None):
    """What to call for `case` in `impl` (the student's module or a reference namespace), its
    module (if any) in `dtype` (default float32)."""
    target = getattr(impl, case.target)
    if case.init is None:
        return target
    module = target(*case.init)
    module.load_state_dict(state)
    return module.to(device=device, dtype=dtype or real_torch().float32)


def decode_program(case, module, cache_class, gen, device, dtype=None):
    """The verification run of a Decode case: a prefill, two single-token steps, then a chunk of
    three, in `dtype` (default float32). Returns the outputs of every call, concatenated along the
    tokens."""
    dtype = dtype or real_torch().float32
    d_model, n_heads, n_kv_heads = case.init
    cache = cache_class(case.batch, n_kv_heads, d_model // n_heads, case.max_len, dtype=dtype, device=device)
    chunks = [Randn((case.batch, n, d_model)).make(gen, device).to(dtype) for n in (case.lengths[0], 1, 1, 3)]
    return real_torch().cat([module(x, cache) for x in chunks], dim=1)

