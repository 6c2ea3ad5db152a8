"""Exercise 8 — The KV cache: `kv_cache_bytes`, `KVCache` and `CachedGroupedQueryAttention`."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import TOLERANCES, Mismatch, check_close, check_tensor, check_unchanged, describe, shape_text
from grader.sandbox import StudentError
from grader.testkit import as64, randn

DTYPES = [torch.float32, torch.float64]
HALF = [torch.float16, torch.bfloat16]

# (d_model, n_heads, n_kv_heads); every d_head is 3, not a power of two
GQA = (18, 6, 2)
MQA = (12, 4, 1)
MHA = (15, 5, 5)


# -- helpers --------------------------------------------------------------------------------


def _s(n):
    return "" if n == 1 else "s"


def _name(dtype):
    return str(dtype).removeprefix("torch.")


def _matches(got, hypothesis, dtype=None):
    """Does got equal a wrong answer (within 10x the dtype's tolerance)? For hints only."""
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(hypothesis.shape):
        return False
    rtol, atol = TOLERANCES.get(dtype or got.dtype, TOLERANCES[torch.float32])
    got64 = got.detach().to("cpu", torch.float64)
    return bool(torch.allclose(got64, hypothesis.to("cpu", torch.float64), rtol=10 * rtol, atol=10 * atol))


def cache_len(student, cache):
    """len(cache) from the student's process, which must be an int."""
    n = student.run(cache, method="__len__")["value"]
    if type(n) is not int:
        raise Mismatch(f"len(cache) returned {describe(n)}, expected an int: the number of tokens cached")
    return n


def check_pair(got, want_k, want_v, *, what, T_new, dtype=None, device=None):
    """cache.update(k, v) returned (keys, values) equal to every token cached so far."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Mismatch(f"{what} returned {describe(got)}, expected a pair (keys, values)")
    T = want_k.shape[2]
    for item, want, name in zip(got, (want_k, want_v), ("keys", "values")):
        check_tensor(item, what=f"the {name} of {what}", dtype=dtype, device=device)
        if item.dim() == 4 and item.shape[2] == T_new != T:
            raise Mismatch(
                f"{what} returned {name} of shape {shape_text(item.shape)}, only the {T_new} new "
                f"token{_s(T_new)}: return ALL the keys and values cached so far, (B, H_kv, T, d_head) "
                f"with T = len(cache) = {T}"
            )
        check_close(item, want, what=f"the {name} of {what}", dtype=dtype)


def reference_module(rng, config, dtype=torch.float32):
    """lumen_ref's GQA in float64 with random weights (values representable in `dtype`)."""
    d_model, n_heads, n_kv_heads = config
    module = ref.GroupedQueryAttention(d_model, n_heads, n_kv_heads).double()
    with torch.no_grad():
        for param in module.parameters():
            param.copy_(randn(rng, *param.shape, dtype=dtype, scale=d_model ** -0.5))
    return module


def check_parameters(state, reference, *, what):
    """The student's state dict has the chapter's parameter names and shapes."""
    expected = {name: tuple(p.shape) for name, p in reference.state_dict().items()}
    got = {name: tuple(t.shape) for name, t in state.items() if isinstance(t, torch.Tensor)}
    for name, shape in expected.items():
        if name not in got:
            have = ", ".join(sorted(got)) or "no parameters at all"
            raise Mismatch(f"{what} has no parameter `{name}` (it has {have}): keep exercise 7's four "
                           "bias-free layers q_proj, k_proj, v_proj and o_proj")
        if got[name] != shape:
            raise Mismatch(f"{what}: `{name}` has shape {shape_text(got[name])}, expected {shape_text(shape)}: "
                           "keep exercise 7's layers (k_proj and v_proj make only n_kv_heads heads)")
    biases = sorted(name for name in got if name.endswith("bias"))
    if biases:
        raise Mismatch(f"{what} has a parameter `{biases[0]}` the chapter's layer doesn't have: "
                       "make every projection nn.Linear(..., bias=False)")


def load_student(student, reference, *, dtype=torch.float32, device="cpu"):
    """The student's CachedGroupedQueryAttention with the reference's weights, in dtype on device."""
    config = (reference.o_proj.out_features, reference.n_heads, reference.n_kv_heads)
    module = student.CachedGroupedQueryAttention(*config)
    what = f"CachedGroupedQueryAttention{config}"
    check_parameters(module.state_dict(), reference, what=what)
    module.to(device=device, dtype=dtype)
    module.load_state_dict({k: v.to(device=device, dtype=dtype) for k, v in reference.state_dict().items()},
                           strict=False)
    return module, what


def new_cache(student, reference, B, max_len, dtype=torch.float32, device="cpu"):
    """The STUDENT's KVCache, sized for the reference module."""
    return student.KVCache(B, reference.n_kv_heads, reference.d_head, max_len, dtype=dtype, device=device)


def attend64(module, x_new, x_keys, mask):
    """float64 outputs of tokens x_new attending to the keys and values of x_keys. Hints only."""
    B, T, _ = x_new.shape
    S = x_keys.shape[1]
    H, H_kv, d_head = module.n_heads, module.n_kv_heads, module.d_head
    with torch.no_grad():
        q = module.q_proj(x_new).view(B, T, H, d_head).transpose(1, 2)
        k = ref.repeat_kv(module.k_proj(x_keys).view(B, S, H_kv, d_head).transpose(1, 2), H // H_kv)
        v = ref.repeat_kv(module.v_proj(x_keys).view(B, S, H_kv, d_head).transpose(1, 2), H // H_kv)
        y, _ = ref.scaled_dot_product_attention(q, k, v, mask)
        return module.o_proj(y.transpose(1, 2).reshape(B, T, H * d_head))


def diagnose_step(student, cache, got, x64, reference, past, T, dtype, what, mismatch):
    """A hint for a wrong output of the call that fed tokens past..past+T-1, or the plain mismatch."""
    new, upto = x64[:, past:past + T], x64[:, :past + T]
    ones = torch.ones(T, past + T, dtype=torch.bool)
    if past > 0:
        n = cache_len(student, cache)
        if n != past + T:
            return Mismatch(f"{what}: len(cache) is {n} after the call, expected {past + T}: forward must add the "
                            "new tokens' keys and values to the cache with cache.update(k, v)", **mismatch.details)
        if _matches(got, attend64(reference, new, new, ref.causal_mask(T)), dtype):
            return Mismatch(
                f"{what} ignores the {past} cached token{_s(past)}: the new tokens must attend to ALL the keys "
                "and values cache.update(k, v) returns (every token cached so far), not only their own",
                **mismatch.details)
        if T > 1 and _matches(got, attend64(reference, new, upto, ones.tril()), dtype):
            return Mismatch(
                f"{what}: the causal mask among the {T} new tokens is aligned to the wrong (top-left) corner: "
                f"new token i sits at position past + i = {past} + i and sees keys 0 .. past + i, so the "
                f"mask is ({T}, {past + T}) tril(diagonal=past)", **mismatch.details)
    if T > 1 and _matches(got, attend64(reference, new, upto, None), dtype):
        return Mismatch(
            f"{what}: the {T} new tokens see each other's future: new token i may see keys 0 .. past + i only "
            "(a (T_new, past + T_new) mask, tril(diagonal=past))", **mismatch.details)
    return mismatch


def feed(student, module, cache, x, chunks, reference, *, what, dtype, device, keyword=False):
    """Feed x (B, L, D) chunk by chunk through one empty cache: each call's output must match the
    reference's causal GQA on the whole sequence, at the chunk's positions."""
    B, L, D = x.shape
    x64 = as64(x)
    with torch.no_grad():
        expected = reference(x64)  # (B, L, D): plain causal GQA on the whole sequence
    plan = "+".join(map(str, chunks))
    start = 0
    for call, T in enumerate(chunks, 1):
        chunk = x[:, start:start + T]
        got = module(chunk, cache=cache) if keyword else module(chunk, cache)
        step = (f"{what}, fed {plan} tokens through a KVCache: call {call} (tokens {start}..{start + T - 1}, "
                f"{start} already cached)")
        check_tensor(got, what=step, shape=(B, T, D), dtype=dtype, device=device)
        try:
            check_close(got, expected[:, start:start + T], what=step, dtype=dtype)
        except Mismatch as mismatch:
            raise diagnose_step(student, cache, got, x64, reference, start, T, dtype, step, mismatch) from None
        start += T
    n = cache_len(student, cache)
    if n != L:
        raise Mismatch(f"{what}: after feeding {L} tokens ({plan}) len(cache) is {n}, expected {L}: forward must "
                       "add the new tokens' keys and values to the cache with cache.update(k, v)")


# -- kv_cache_bytes -------------------------------------------------------------------------


def check_bytes(got, args, kwargs, *, what):
    expected = ref.kv_cache_bytes(*args, **kwargs)
    try:
        value = float(got)
    except (TypeError, ValueError, RuntimeError):
        raise Mismatch(f"{what} returned {describe(got)}, expected an int (a number of bytes)") from None
    batch = kwargs.get("batch_size", 1)
    per_value = kwargs.get("bytes_per_value", 2)
    if value != expected:
        if value * 2 == expected:
            hint = "half the answer: the cache holds keys AND values, so multiply by 2"
        elif batch > 1 and value * batch == expected:
            hint = "the cache of one sequence: every sequence in the batch has its own, so multiply by batch_size"
        elif value * per_value == expected:
            hint = "a count of numbers, not of bytes: multiply by bytes_per_value"
        else:
            hint = "2 (keys and values) × n_layers × n_kv_heads × d_head × seq_len × batch_size × bytes_per_value"
        raise Mismatch(f"{what} returned {got}, expected {expected:,}: {hint}")
    if type(got) is not int:
        kind = f"the {type(got).__name__} {got!r}" if isinstance(got, (float, bool)) else describe(got)
        raise Mismatch(f"{what} returned {kind}, expected an int: a number of bytes is whole, so multiply "
                       "the ints (no /, math.pow or tensors)")


@pytest.mark.points(2)
def test_kv_cache_bytes_llama2_7b(student):
    got = student.kv_cache_bytes(32, 32, 128, 4096)
    check_bytes(got, (32, 32, 128, 4096), {},
                what="kv_cache_bytes(32, 32, 128, 4096) (Llama-2 7B, 4,096 tokens in fp16: 2 GiB)")


@pytest.mark.parametrize("args, kwargs", [
    ((80, 8, 128, 4096), {}),  # Llama-2 70B: GQA with 8 KV heads
    ((32, 32, 128, 4096), {"batch_size": 32}),  # the chapter's 32 users at once: 64 GiB
    ((12, 12, 64, 1024), {"batch_size": 3, "bytes_per_value": 4}),  # GPT-2 small in fp32
], ids=["llama2-70b-gqa", "batch-of-32", "fp32"])
def test_kv_cache_bytes_cases(student, args, kwargs):
    names = ("n_layers", "n_kv_heads", "d_head", "seq_len")
    call = dict(zip(names, args), **kwargs)  # by keyword: the argument names are part of the contract
    got = student.kv_cache_bytes(**call)
    text = ", ".join(f"{k}={v}" for k, v in call.items())
    check_bytes(got, args, kwargs, what=f"kv_cache_bytes({text})")


# -- KVCache --------------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_kvcache_update_returns_everything(student, rng, device, dtype):
    B, H_kv, d_head, max_len = 2, 2, 3, 8
    cache = student.KVCache(B, H_kv, d_head, max_len, dtype=dtype, device=device)
    oracle = ref.KVCache(B, H_kv, d_head, max_len, dtype=torch.float64)
    past = 0
    for T in (3, 1, 2):
        k = randn(rng, B, H_kv, T, d_head, dtype=dtype, device=device)
        v = randn(rng, B, H_kv, T, d_head, dtype=dtype, device=device)
        reply = student.run(cache, k, v, method="update", return_args=True)
        check_unchanged(k, reply["args"][0], what="k")
        check_unchanged(v, reply["args"][1], what="v")
        want_k, want_v = oracle.update(as64(k), as64(v))
        check_pair(reply["value"], want_k, want_v, T_new=T, dtype=dtype, device=device,
                   what=f"cache.update(k, v) with {T} new token{_s(T)} after {past} (a KVCache of {_name(dtype)})")
        past += T


def test_kvcache_len(student, rng):
    cache = student.KVCache(1, 2, 4, 10)  # default dtype: float32
    n = cache_len(student, cache)
    if n != 0:
        raise Mismatch(f"a new KVCache has len(cache) = {n}, expected 0: no token is cached yet")
    total = 0
    for T in (3, 4, 1):
        cache.update(randn(rng, 1, 2, T, 4), randn(rng, 1, 2, T, 4))
        total += T
        n = cache_len(student, cache)
        if n != total:
            raise Mismatch(f"after updates of {total - T} and then {T} tokens len(cache) is {n}, expected {total}: "
                           "len is the number of tokens cached (dim 2), not of batch rows or heads")


def test_kvcache_reset(student, rng):
    cache = student.KVCache(2, 2, 3, 8)
    cache.update(randn(rng, 2, 2, 4, 3), randn(rng, 2, 2, 4, 3))
    cache.reset()
    n = cache_len(student, cache)
    if n != 0:
        raise Mismatch(f"after cache.reset() len(cache) is {n}, expected 0: reset must set the number of "
                       "cached tokens back to 0 (the storage may stay)")
    k, v = randn(rng, 2, 2, 3, 3), randn(rng, 2, 2, 3, 3)
    check_pair(cache.update(k, v), as64(k), as64(v), T_new=3,
               what="cache.update(k, v) with 3 tokens after 4 tokens and cache.reset()")


@pytest.mark.points(2)
def test_kvcache_full_raises_value_error(student, rng):
    cache = student.KVCache(2, 2, 3, 5)
    k1, v1 = randn(rng, 2, 2, 3, 3), randn(rng, 2, 2, 3, 3)
    cache.update(k1, v1)
    try:
        cache.update(randn(rng, 2, 2, 3, 3), randn(rng, 2, 2, 3, 3))
    except StudentError as error:
        if error.type == "NotImplementedError":
            raise
        if error.type != "ValueError":
            raise Mismatch(f"appending 3 tokens to a KVCache(max_len=5) holding 3 raised {error.type}, expected "
                           "ValueError: check len(cache) + T_new <= max_len before writing") from None
    else:
        raise Mismatch("appending 3 tokens to a KVCache(max_len=5) holding 3 did not raise ValueError: check "
                       "len(cache) + T_new <= max_len before writing anything")
    n = cache_len(student, cache)
    if n != 3:
        raise Mismatch(f"after the refused update len(cache) is {n}, expected 3: raise the ValueError before "
                       "changing anything")
    k2, v2 = randn(rng, 2, 2, 2, 3), randn(rng, 2, 2, 2, 3)
    try:
        got = cache.update(k2, v2)
    except StudentError as error:
        if error.type != "ValueError":
            raise
        raise Mismatch("filling a KVCache(max_len=5) exactly (3 cached + 2 new) raised ValueError: only refuse "
                       "when len(cache) + T_new > max_len") from None
    check_pair(got, torch.cat([as64(k1), as64(k2)], 2), torch.cat([as64(v1), as64(v2)], 2), T_new=2,
               what="cache.update(k, v) with 2 tokens after 3 and a refused update")


@pytest.mark.hidden
def test_kvcache_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("half precision is checked on CUDA only")
    for dtype in HALF:
        cache = student.KVCache(2, 2, 8, 6, dtype=dtype, device=device)
        oracle = ref.KVCache(2, 2, 8, 6, dtype=torch.float64)
        for T in (2, 3):
            k, v = randn(rng, 2, 2, T, 8, dtype=dtype, device=device), randn(rng, 2, 2, T, 8, dtype=dtype,
                                                                            device=device)
            want_k, want_v = oracle.update(as64(k), as64(v))
            check_pair(cache.update(k, v), want_k, want_v, T_new=T, dtype=dtype, device=device,
                       what=f"cache.update(k, v) in a KVCache of {_name(dtype)}")


# -- CachedGroupedQueryAttention ------------------------------------------------------------


@pytest.mark.points(2)
def test_cached_gqa_without_cache(student, rng, device):
    reference = reference_module(rng, GQA)
    module, what = load_student(student, reference, device=device)
    x = randn(rng, 2, 7, GQA[0], device=device)
    got = module(x)
    with torch.no_grad():
        expected = reference(as64(x))
    check_tensor(got, what=f"{what}(x) with cache=None", shape=expected.shape, dtype=torch.float32, device=device)
    try:
        check_close(got, expected, what=f"{what}(x) with cache=None")
    except Mismatch as mismatch:
        if _matches(got, attend64(reference, as64(x), as64(x), None)):
            raise Mismatch(f"{what}(x) with cache=None lets every token see the whole sequence: without a cache "
                           "it is plain causal GQA, token i sees tokens 0..i", **mismatch.details) from None
        raise


CHUNKINGS = {
    "whole": [9],
    "token-by-token": [1] * 9,
    "3+1+5": [3, 1, 5],
    "2+2+2+2+1": [2, 2, 2, 2, 1],
}


@pytest.mark.points(2)
@pytest.mark.parametrize("chunking", list(CHUNKINGS))
def test_cached_gqa_chunked(student, rng, device, chunking):
    reference = reference_module(rng, GQA)
    module, what = load_student(student, reference, device=device)
    x = randn(rng, 2, 9, GQA[0], device=device)
    cache = new_cache(student, reference, 2, 12, device=device)
    feed(student, module, cache, x, CHUNKINGS[chunking], reference, what=what, dtype=torch.float32,
         device=device, keyword=chunking in ("token-by-token", "2+2+2+2+1"))


@pytest.mark.hidden
@pytest.mark.parametrize("config", [MQA, MHA], ids=["MQA-4q-1kv", "MHA-5q-5kv"])
def test_cached_gqa_other_head_counts(student, rng, config):
    reference = reference_module(rng, config)
    module, what = load_student(student, reference)
    x = randn(rng, 3, 8, config[0])
    feed(student, module, new_cache(student, reference, 3, 8), x, [4, 1, 3], reference, what=what,
         dtype=torch.float32, device="cpu")


def test_cached_gqa_float64(student, rng, device):
    reference = reference_module(rng, GQA, torch.float64)
    module, what = load_student(student, reference, dtype=torch.float64, device=device)
    x = randn(rng, 2, 6, GQA[0], dtype=torch.float64, device=device)
    cache = new_cache(student, reference, 2, 6, dtype=torch.float64, device=device)
    feed(student, module, cache, x, [2, 1, 3], reference, what=f"{what} in float64", dtype=torch.float64,
         device=device)


@pytest.mark.points(2)
def test_cached_gqa_reset_between_sequences(student, rng):
    reference = reference_module(rng, GQA)
    module, what = load_student(student, reference)
    cache = new_cache(student, reference, 2, 16)
    first, second = randn(rng, 2, 5, GQA[0]), randn(rng, 2, 6, GQA[0])
    feed(student, module, cache, first, [3, 2], reference, what=what, dtype=torch.float32, device="cpu")
    cache.reset()
    n = cache_len(student, cache)
    if n != 0:
        raise Mismatch(f"after 5 tokens and cache.reset() len(cache) is {n}, expected 0: reset must set the "
                       "number of cached tokens back to 0, ready for the next sequence")
    feed(student, module, cache, second, [2, 1, 3], reference, what=f"{what} (a second sequence after reset)",
         dtype=torch.float32, device="cpu")


def test_cached_gqa_input_not_modified(student, rng):
    reference = reference_module(rng, GQA)
    module, what = load_student(student, reference)
    cache = new_cache(student, reference, 2, 8)
    for T in (3, 2):
        x = randn(rng, 2, T, GQA[0])
        reply = student.run(module, x, cache=cache, method="__call__", return_args=True)
        check_unchanged(x, reply["args"][0], what="x")


def test_cached_gqa_gradients(student, rng, device):
    reference = reference_module(rng, GQA, torch.float64)
    module, what = load_student(student, reference, dtype=torch.float64, device=device)
    x = randn(rng, 2, 5, GQA[0], dtype=torch.float64, device=device)
    upstream = randn(rng, 2, 5, GQA[0], dtype=torch.float64, device=device)
    value, grads, param_grads = student.backward(module, x, wrt=[0], upstream=[upstream])
    x64 = as64(x).requires_grad_(True)
    expected_value = reference(x64)
    check_close(value, expected_value, what=f"{what}(x) with cache=None")
    names, params = zip(*reference.named_parameters())
    expected = torch.autograd.grad((expected_value * as64(upstream)).sum(), [x64, *params])
    for got, want, name in zip([grads[0]] + [param_grads.get(n) for n in names], expected, ("x",) + names):
        if got is None:
            raise AssertionError(f"{what}: no gradient reached `{name}`; is it used, and not detached?")
        check_close(got, want, what=f"the gradient of {what}(x) w.r.t. {name}", dtype=torch.float64)


@pytest.mark.points(2)
@pytest.mark.hidden
def test_cached_gqa_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("half precision is checked on CUDA only")
    for dtype in HALF:
        reference = reference_module(rng, GQA, dtype)
        module, what = load_student(student, reference, dtype=dtype, device=device)
        x = randn(rng, 2, 6, GQA[0], dtype=dtype, device=device, scale=0.5)  # outputs ~0.25: well above atol
        cache = new_cache(student, reference, 2, 6, dtype=dtype, device=device)
        feed(student, module, cache, x, [3, 1, 2], reference, what=f"{what} in {_name(dtype)}", dtype=dtype,
             device=device)
