"""Exercise 1, honest answers, plus a static-hold probe: `__setattr__` taken as a value (M.__setattr__ is
type.__setattr__) is never checked, so a dunder the hold refuses to define (`__instancecheck__`,
REFUSED_METHODS) is set under a name made at run time. The module then proves it took effect: the import
fails (a grade of 0) unless isinstance(5, Anything) is True."""
import torch


class Meta(type):
    pass


class Anything(metaclass=Meta):
    pass


_set = Meta.__setattr__
_set(Meta, "__instance" + "check__", lambda cls, obj: True)
assert isinstance(5, Anything) and isinstance(torch.zeros(1), Anything), "the run-time dunder did not land"


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    return (x @ w_qkv).chunk(3, dim=-1)
