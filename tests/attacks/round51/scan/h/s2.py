import math, re, json, copy, random, itertools, operator, pprint, textwrap, statistics, heapq, bisect, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, cast, overload, Iterator, Any, Union
from functools import partial, reduce, total_ordering, singledispatch
from dataclasses import dataclass
import torch
from torch import nn, Tensor
from torch.utils.checkpoint import checkpoint
from einops import rearrange, repeat

if TYPE_CHECKING:
    from collections.abc import Sequence

PATTERN = re.compile(r"(\w+)_proj")
HERE = Path(__file__).parent

class HasForward(Protocol):
    def forward(self, x: Tensor) -> Tensor: ...

class ScaledSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, s):
        w = torch.softmax(s, dim=-1)
        ctx.save_for_backward(w)
        return w

    @staticmethod
    def backward(ctx, g):
        (w,) = ctx.saved_tensors
        return w * (g - (g * w).sum(-1, keepdim=True))

@total_ordering
@dataclass(frozen=True, slots=True)
class Key:
    n: int
    def __lt__(self, other):
        return self.n < other.n
    def __eq__(self, other):
        return isinstance(other, Key) and self.n == other.n
    def __hash__(self):
        return hash(self.n)

@singledispatch
def size_of(x) -> int:
    return 0

@size_of.register
def _(x: int) -> int:
    return x

class Heads(nn.Module):
    def __init__(self, d, h, mode: Literal["causal", "full"] = "causal"):
        super(Heads, self).__init__()
        for name in ("q", "k", "v", "o"):
            setattr(self, f"{name}_proj", nn.Linear(d, d, bias=False))
        self.h, self.mode = h, mode
        self.net = nn.Sequential(nn.Linear(d, d), nn.GELU())
        self.hook = self.register_forward_hook(lambda m, i, o: None)
        nn.init.xavier_uniform_(self.q_proj.weight)

    def projections(self) -> Iterator[nn.Linear]:
        for name in ["q", "k", "v"]:
            yield getattr(self, name + "_proj")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Heads":
        return cls(**d)

    def forward(self, x: Tensor) -> Tensor:
        q, k, v = (rearrange(p(x), "b l (h d) -> b h l d", h=self.h) for p in self.projections())
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        match self.mode:
            case "causal":
                L = s.shape[-1]
                s = s.masked_fill(~torch.ones(L, L, dtype=torch.bool).tril(), -math.inf)
            case _:
                pass
        w = ScaledSoftmax.apply(s)
        out = checkpoint(torch.matmul, w, v, use_reentrant=False)
        out = cast(Tensor, out)
        return self.o_proj(rearrange(out, "b h l d -> b l (h d)"))

def describe(shapes: list[tuple[int, ...]]) -> str:
    best = heapq.nlargest(2, shapes, key=operator.itemgetter(0))
    total = reduce(operator.mul, shapes[0], 1)
    return textwrap.dedent(json.dumps({"best": best, "total": total, "when": str(datetime.date.today())}))

def check(x: Union[Tensor, float]) -> None:
    match x:
        case torch.Tensor():
            assert x.dtype in (torch.float32, torch.float64), f"bad dtype {x.dtype}"
        case float(v) | int(v):
            print(round(v, 3))
        case {"shape": (a, b)}:
            print(a, b)
        case [first, *rest]:
            print(first, rest)

def _test():
    torch.manual_seed(0)
    m = Heads(8, 2)
    y = m(torch.randn(2, 3, 8))
    torch.testing.assert_close(y, y)
    pprint.pprint(statistics.mean([1.0, 2.0]))
    print(copy.deepcopy(m), random.random(), list(itertools.product([1], [2])), bisect.bisect([1, 2], 1))
    fast = torch.compile(m)
    return fast
