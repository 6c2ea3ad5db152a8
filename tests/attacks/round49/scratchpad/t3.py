import sys
sys.path.insert(0, "/work/scratch20")
from grader.sandbox.reach import reaches
S = {}
S["apply_init"] = '''
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.apply(self._init_weights)
    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
'''
S["dict_repr"] = '''
class Config:
    def __init__(self, **kw):
        self.__dict__.update(kw)
'''
S["vars_repr"] = '''
class Config:
    def __repr__(self):
        return f"Config({vars(self)})"
'''
S["loader"] = '''
class KVCache:
    def load(self, k, v, start):
        pass
    def f(self, k, v):
        self.load(k, v, 0)
'''
S["tensor_type"] = '''
import torch
def f(x):
    return torch.Tensor.type(x, torch.float64)
'''
S["format_msg"] = '''
MSG = "expected {} got {}"
def f(x, n):
    if x.shape[-1] != n:
        raise ValueError(MSG.format(n, x.shape[-1]))
'''
S["format_joined"] = '''
def f(x, n):
    template = ("expected {} " +
                "got {}")
    raise ValueError(template.format(n, x))
'''
S["format_self_attr"] = '''
class A:
    err = "bad {}"
    def f(self, x):
        raise ValueError(self.err.format(x))
'''
S["getattr_dtype"] = '''
import torch
def f(x, name="float32"):
    return x.to(getattr(torch, name))
'''
S["getattr_loop_param"] = '''
class A:
    def f(self, x):
        outs = []
        for n in ("q", "k", "v"):
            outs.append(x @ getattr(self, "w_" + n))
        return outs
'''
S["getattr_fstring"] = '''
class A:
    def f(self, x):
        return [x @ getattr(self, f"w_{n}") for n in "qkv"]
'''
S["setattr_loop"] = '''
import torch
class A:
    def __init__(self, d):
        for n in "qkv":
            setattr(self, f"w_{n}", torch.randn(d, d))
'''
S["new"] = '''
class Flags:
    def __new__(cls, *a):
        return super().__new__(cls)
'''
S["dataclass_slots"] = '''
from dataclasses import dataclass, field
import torch
@dataclass(slots=True)
class KV:
    k: torch.Tensor | None = None
    v: torch.Tensor | None = None
    length: int = 0
    extra: list = field(default_factory=list)
'''
S["namedtuple"] = '''
from typing import NamedTuple
import torch
class QKV(NamedTuple):
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
def f(x):
    return QKV(x, x, x)._asdict()
'''
S["match_shape"] = '''
def f(x):
    match x.shape:
        case (b, l, d):
            return b
        case (l, d):
            return l
'''
S["match_class_kw"] = '''
import torch
def f(x):
    match x:
        case torch.Tensor(ndim=2):
            return 1
'''
S["logging"] = '''
import logging
log = logging.getLogger(__name__)
logging.basicConfig(level=logging.DEBUG, format="{levelname}: {message}", style="{")
def f(x):
    log.debug("shape %s", x.shape)
'''
S["einops"] = '''
from einops import rearrange, repeat, einsum
def f(x, h):
    return rearrange(x, "b l (h d) -> b h l d", h=h)
'''
S["typing_cast"] = '''
from typing import cast, Optional, TYPE_CHECKING
import torch
if TYPE_CHECKING:
    from torch import Tensor
def f(x: "Tensor") -> "Optional[Tensor]":
    return cast(torch.Tensor, x)
'''
S["partial"] = '''
import functools, torch
def f(x, dim):
    g = functools.partial(torch.sum, dim=dim)
    return g(x)
'''
S["reduce"] = '''
import functools, operator
def f(shape):
    return functools.reduce(operator.mul, shape, 1)
'''
S["opgetitem"] = '''
import operator
def f(pairs):
    return sorted(pairs, key=operator.itemgetter(1))
'''
S["torch_load_safe"] = '''
import torch
def f(path):
    return torch.load(path, weights_only=True)
'''
S["contextlib_suppress"] = '''
import contextlib, torch
def f(x):
    with contextlib.suppress(RuntimeError):
        return x.view(-1)
    return x.reshape(-1)
'''
S["inference_mode"] = '''
import torch
@torch.inference_mode()
def f(x):
    return x + 1
'''
S["finfo"] = '''
import torch
def f(x):
    return torch.finfo(x.dtype).min, torch.iinfo(torch.int32).max
'''
S["exc_notes"] = '''
def f(x):
    try:
        return x.view(2, -1)
    except RuntimeError as e:
        e.add_note("while splitting heads")
        raise
'''
S["print_file"] = '''
import sys
def f(x):
    print("dbg", x.shape, file=sys.stderr, flush=True)
'''
S["itertools"] = '''
import itertools
def f(L, b):
    return list(itertools.pairwise(range(0, L + b, b)))
'''
S["enum"] = '''
import enum
class Kind(enum.Enum):
    PREV = "previous"
    IND = "induction"
def f(k):
    return Kind(k).name
'''
S["abc"] = '''
from abc import ABC, abstractmethod
class Base(ABC):
    @abstractmethod
    def forward(self, x): ...
'''
S["property_setter"] = '''
class C:
    @property
    def length(self):
        return self._length
    @length.setter
    def length(self, v):
        self._length = v
'''
S["torch_compile"] = '''
import torch
@torch.compile
def f(x):
    return x
'''
S["checkpoint"] = '''
import torch
from torch.utils.checkpoint import checkpoint
def f(fn, x):
    return checkpoint(fn, x, use_reentrant=False)
'''
S["nn_functional_pad"] = '''
import torch.nn.functional as F
def f(x, n):
    return F.pad(x, (0, n), value=float("-inf"))
'''
S["tensor_new"] = '''
def f(x, L):
    return x.new_full((L, L), float("-inf")).triu(1)
'''
S["torch_utils_data"] = '''
from torch.utils.data import TensorDataset
'''
S["version_check"] = '''
import torch
NEW = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 0)
'''
S["get_default_dtype"] = '''
import torch
def f():
    return torch.get_default_dtype(), torch.is_grad_enabled()
'''
S["math_fns"] = '''
import math
def f(x):
    return math.isclose(x, 1.0), math.prod([1,2]), math.log2(8)
'''
S["typing_overload"] = '''
from typing import overload, Union
import torch
@overload
def f(x: torch.Tensor) -> torch.Tensor: ...
@overload
def f(x: float) -> float: ...
def f(x):
    return x
'''
S["self_class_name"] = '''
class C:
    def __repr__(self):
        return f"{type(self).__name__}(d={self.d})"
'''
S["format_spec_self"] = '''
def f(loss):
    print(f"{loss:.4f}", "{:>8}".format("x"))
'''
S["stack_classmethod"] = '''
import torch
class Cache:
    @classmethod
    def empty(cls, B, H, d, device=None):
        return cls(torch.empty(B, H, 0, d, device=device))
    def __init__(self, k):
        self.k = k
'''
S["hasattr_F"] = '''
import torch.nn.functional as F
HAS = hasattr(F, "scaled_dot_product_attention")
'''
S["nn_Parameter"] = '''
import torch, torch.nn as nn
class A(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.W_Q = nn.Parameter(torch.empty(d, d))
        nn.init.kaiming_uniform_(self.W_Q, a=5 ** 0.5)
        self.register_buffer("causal", torch.ones(4, 4).tril().bool(), persistent=False)
    def extra_repr(self):
        return f"d={self.W_Q.shape[0]}"
'''
S["tensor_backward_hook"] = '''
import torch
def f(x):
    x.register_hook(lambda g: g)
    return x
'''
for k, s in S.items():
    r = reaches(s)
    print(f"{k:22s}", [x.names for x in r] if r else "ok")
