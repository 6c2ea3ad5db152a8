"""Exercise 10 — a submission with no online softmax and no tiling at all: `tiled_attention` is torch's
own fused flash-attention CPU kernel and `online_softmax` torch's own softmax kernel, both forbidden
here ("softmax", "fused-attention"), both reached through ctypes from libtorch_cpu.so's symbols, so
that neither the rules' TorchFunctionMode, nor the refusing kernels registered in the dispatcher,
nor the allocation probe's TorchDispatchMode (no matrix products: "it passes here") ever sees them."""

import ctypes
import math
import os

import torch

_LIB = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))

# at::cpu::_softmax_outf(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out)
_SOFTMAX = _LIB._ZN2at3cpu13_softmax_outfERKNS_6TensorElbRS1_
_SOFTMAX.restype = ctypes.c_void_p
_SOFTMAX.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_bool, ctypes.c_void_p]


class _OptionalDouble(ctypes.Structure):  # std::optional<double>, by value
    _fields_ = [("value", ctypes.c_double), ("engaged", ctypes.c_bool)]


# at::native::flash_attention_kernel's CPU implementation, read from its DispatchStub's DEFAULT slot:
# void(const Tensor& out, const Tensor& logsumexp, const Tensor& q, const Tensor& k, const Tensor& v,
#      double dropout_p, bool is_causal, std::optional<Tensor> attn_mask, std::optional<double> scale)
_STUB = ("_ZN2at6native12DispatchStubIPFvRKNS_6TensorES4_S4_S4_S4_dbSt8optionalIS2_ES5_IdEENS0_44"
         "flash_attention_kernel_DECLARE_DISPATCH_typeEE7DEFAULTE")
_FLASH = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * 5), ctypes.c_double, ctypes.c_bool, ctypes.c_void_p,
                          _OptionalDouble)(ctypes.c_void_p.in_dll(_LIB, _STUB).value)


def _ref(t):
    slot = ctypes.c_void_p(t._cdata)  # an at::Tensor is one intrusive_ptr<TensorImpl>
    return slot, ctypes.addressof(slot)


def _softmax_kernel(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    if x.numel():
        (a, pa), (b, pb) = _ref(x), _ref(out)
        _SOFTMAX(pa, x.dim() - 1, False, pb)
    return torch.nan_to_num(out, nan=0.0)  # an all -inf row: torch's NaN, the docstring's zeros


def _flash(q, k, v, causal, scale):
    """torch's fused attention kernel on (B, H, L, D) CPU tensors: (out, logsumexp)."""
    B, H, L_q, D = q.shape
    out = torch.empty(B, L_q, H, D, dtype=q.dtype)
    lse = torch.empty(B, L_q, H, dtype=torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype)
    keep = [q.contiguous(), k.contiguous(), v.contiguous()]
    refs = [_ref(out), _ref(lse)] + [_ref(t) for t in keep]
    no_mask = (ctypes.c_ubyte * 16)()  # a disengaged std::optional<Tensor>, passed by invisible reference
    _FLASH(*[p for _, p in refs], 0.0, causal, ctypes.addressof(no_mask), _OptionalDouble(scale, True))
    return out.transpose(1, 2), lse.transpose(1, 2).unsqueeze(-1)


def _merge(o1, l1, o2, l2):
    m = torch.maximum(l1, l2)
    w1, w2 = torch.exp(l1 - m), torch.exp(l2 - m)
    return (o1 * w1 + o2 * w2) / (w1 + w2)


def _fused(q, k, v, causal):
    lead, L_q, L_k, d_k, d_v = q.shape[:-2], q.size(-2), k.size(-2), q.size(-1), v.size(-1)
    D = max(d_k, d_v)  # the kernel wants one head size: zeros added to q, k and v change nothing
    pad = lambda t: torch.nn.functional.pad(t.to("cpu"), (0, D - t.size(-1))).reshape(-1, 1, t.size(-2), D)
    q4, k4, v4 = pad(q), pad(k), pad(v)
    scale = 1.0 / math.sqrt(d_k)
    if not causal:
        out, _ = _flash(q4, k4, v4, False, scale)
    elif L_q <= L_k:  # the queries are the last L_q positions: keys before them seen by all, then a causal square
        off = L_k - L_q
        out, lse = _flash(q4, k4[..., off:, :], v4[..., off:, :], True, scale)
        if off:
            o1, l1 = _flash(q4, k4[..., :off, :], v4[..., :off, :], False, scale)
            out = _merge(o1, l1, out, lse)
    else:  # more queries than keys: the first L_q - L_k see nothing
        o2, _ = _flash(q4[..., L_q - L_k:, :].contiguous(), k4, v4, True, scale)
        out = torch.cat([torch.zeros_like(q4[..., :L_q - L_k, :]), o2], dim=-2)
    return out[..., :d_v].reshape(*lead, L_q, d_v).to(q.dtype).to(q.device)


def _plain(q, k, v, causal):
    """Only for autograd's backward pass (the forward never runs it)."""
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if causal:
        L_q, L_k = q.size(-2), k.size(-2)
        keep = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril(diagonal=L_k - L_q)
        s = s.masked_fill(~keep, float("-inf"))
    m = s.amax(-1, keepdim=True)
    e = torch.exp(s - m.masked_fill(m == float("-inf"), 0))
    t = e.sum(-1, keepdim=True)
    return (e / t.masked_fill(t == 0, 1)) @ v


class _Fused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal):
        ctx.causal = causal
        ctx.save_for_backward(q, k, v)
        return _fused(q.detach(), k.detach(), v.detach(), causal)

    @staticmethod
    def backward(ctx, g):
        q, k, v = (t.detach().requires_grad_(True) for t in ctx.saved_tensors)
        with torch.enable_grad():
            out = _plain(q, k, v, ctx.causal)
        return (*torch.autograd.grad(out, (q, k, v), g), None)


class _Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = _softmax_kernel(x.detach().to("cpu")).to(x.device)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return y * (g - (g * y).sum(-1, keepdim=True))


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    return _Softmax.apply(x)


def tiled_attention(q, k, v, block_size, causal=False):
    # CONTROL: the same fused kernel, reached the ordinary way
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
