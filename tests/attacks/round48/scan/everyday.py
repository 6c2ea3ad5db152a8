import functools
import logging
import math
import os
import sys
import time
import warnings
import copy
from collections import OrderedDict, namedtuple
from dataclasses import dataclass, field, asdict
from enum import Enum, auto
from typing import Optional, Tuple, TYPE_CHECKING

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

log = logging.getLogger(__name__)
torch.manual_seed(0)
Pair = namedtuple("Pair", "keys values")


class Kind(Enum):
    CAUSAL = auto()
    FULL = auto()


@functools.lru_cache(maxsize=None)
def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


@dataclass
class Config:
    d_model: int = 16
    tags: list = field(default_factory=list)


class Attn(nn.Module):
    def __init__(self, d_model: int, max_len: int = 64):
        super().__init__()
        self.register_buffer("_mask", torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)), persistent=False)
        self.proj = nn.ModuleDict({"q": nn.Linear(d_model, d_model), "k": nn.Linear(d_model, d_model)})
        self.apply(self._init_weights)
        nn.init.xavier_uniform_(self.proj["q"].weight)
        self.cfg = Config(d_model)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    @property
    def device(self):
        return next(self.parameters()).device

    def forward(self, x: Tensor, mask: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
        t0 = time.perf_counter()
        L = x.size(-2)
        if mask is None:
            mask = self._mask[:L, :L]
        if os.environ.get("DEBUG"):
            print(f"{x.shape=} {type(self).__name__} {self.__class__.__name__}", file=sys.stderr)
            print("{:.3f}".format(time.perf_counter() - t0))
            print(asdict(self.cfg), torch.__version__, torch.version.cuda, dir(x))
        eps = torch.finfo(x.dtype).eps + sys.float_info.epsilon
        q, k = self.proj["q"](x), self.proj["k"](x)
        s = torch.baddbmm(torch.zeros(1), q, k.transpose(-2, -1)) / math.sqrt(x.size(-1) + eps)
        s = s.masked_fill(~mask, torch.finfo(s.dtype).min)
        if not torch.is_grad_enabled():
            warnings.warn("no grad")
        log.debug("done %s", s.shape)
        st = copy.deepcopy(self.state_dict())
        params = dict(self.named_parameters())
        return F.softmax(s, dim=-1) @ x, s

    def extra_repr(self):
        return f"d_model={self.cfg.d_model}"

    def __repr__(self):
        return super().__repr__()


def forward_many(layer, xs):
    return [layer(x) for x in xs]


if torch.cuda.is_available() and hasattr(torch, "compile"):
    fast = torch.compile(forward_many)
torch.set_printoptions(precision=3)
y = torch.nn.utils.parameters_to_vector(Attn(4).parameters())
t = torch.randn(3).numpy()
z = torch.utils.checkpoint.checkpoint
