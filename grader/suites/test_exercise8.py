"""Exercise 8 — The KV cache: `kv_cache_bytes`, `KVCache` and `CachedGroupedQueryAttention`."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import Mismatch, describe, dtype_text, plural, summarise
from grader.sandbox import StudentError
from grader.testkit import (
    as64,
    check_forward,
    check_inputs_kept,
    check_module_gradients,
    check_result,
    load_module,
    make,
    passed,
    randn,
    reference_module,
)

DTYPES = [torch.float32, torch.float64]
HALF = [torch.float16, torch.bfloat16]

# (d_model, n_heads, n_kv_heads); every d_head is 3, not a power of two
GQA = (18, 6, 2)
MQA = (12, 4, 1)
MHA = (15, 5, 5)


# -- helpers --------------------------------------------------------------------------------

CHECKS = {
    "layers": "keep exercise 7's four bias-free layers q_proj, k_proj, v_proj and o_proj (k_proj and v_proj make "
              "only n_kv_heads heads)",
    "bias": "make every projection nn.Linear(..., bias=False)",
}


def cache_len(cache):
    """len(cache) from the student's process, which must be an int."""
    n = cache.run("__len__")["value"]
    if type(n) is not int:
        raise Mismatch(f"len(cache) returned {describe(n)}, expected an int: the number of tokens cached",
                       call=cache.last_call())
    return n


def expect_len(cache, expected, message, **details):
    """len(cache) is `expected`, or a Mismatch with `message`, its {n} and {expected} filled in."""
    n = cache_len(cache)
    if n != expected:
        raise Mismatch(message.replace("{n}", str(n)).replace("{expected}", str(expected)), call=cache.last_call(),
                       **details)
    passed(cache.last_call())


def check_pair(cache, got, want_k, want_v, *, what, like=None):
    """cache.update(k, v) returned (keys, values) equal to every token cached so far."""
    check_result(got, (want_k, want_v), what=what, labels=("keys", "values"), like=like, call=cache.last_call())


def reference_gqa(rng, config, dtype=torch.float32):
    """lumen_ref's GQA in float64 with the test's own weights (values `dtype` holds exactly)."""
    return reference_module(rng, ref.GroupedQueryAttention, *config, dtype=dtype)


def load_cached(student, reference, *, dtype=torch.float32, device="cpu"):
    """The student's CachedGroupedQueryAttention with the reference's weights: (module, its name)."""
    config = (reference.o_proj.out_features, reference.n_heads, reference.n_kv_heads)
    return load_module(student, "CachedGroupedQueryAttention", reference, *config, dtype=dtype, device=device,
                       checks=CHECKS)


def new_cache(student, reference, B, max_len, dtype=torch.float32, device="cpu"):
    """The STUDENT's KVCache, sized for the reference module."""
    return make(student, "KVCache", B, reference.n_kv_heads, reference.d_head, max_len, dtype=dtype, device=device)


def feed(module, cache, x, chunks, reference, *, what, keyword=False):
    """Feed x (B, L, D) chunk by chunk through one empty cache: each call must add its tokens to the
    cache, and its output must match the reference's causal GQA on the whole sequence at its positions."""
    B, L, D = x.shape
    with torch.no_grad():
        expected = reference(as64(x))  # (B, L, D): plain causal GQA on the whole sequence
    plan = "+".join(map(str, chunks))
    start = 0
    for call, T in enumerate(chunks, 1):
        chunk = x[:, start:start + T]
        got = module(chunk, cache=cache) if keyword else module(chunk, cache)
        step = (f"{what}, fed {plan} tokens through a KVCache: call {call} (tokens {start}..{start + T - 1}, "
                f"{start} already cached)")
        output = module.last_call()
        expect_len(cache, start + T, step + ": len(cache) is {n} after the call, expected {expected}: forward "
                   "must add the new tokens' keys and values to the cache with cache.update(k, v)")
        check_result(got, expected[:, start:start + T], what=step, like=x, call=output)
        start += T


# -- kv_cache_bytes -------------------------------------------------------------------------


def check_bytes(student, *args, what, **kwargs):
    """The student's kv_cache_bytes(*args, **kwargs): the reference's number of bytes, as an int."""
    got = student.kv_cache_bytes(*args, **kwargs)
    expected = ref.kv_cache_bytes(*args, **kwargs)
    call = {"target": "kv_cache_bytes", "args": args, "kwargs": kwargs, "got": got}
    try:
        value = float(got)
    except (TypeError, ValueError, RuntimeError):
        raise Mismatch(f"{what} returned {describe(got)}, expected an int (a number of bytes)") from None
    if value != expected:
        raise Mismatch(f"{what} returned {summarise(got)}, expected {expected:,}: the cache holds 2 (keys and "
                       "values) × n_layers × n_kv_heads × d_head × seq_len × batch_size × bytes_per_value bytes",
                       call=call)
    passed(call)
    if type(got) is not int:
        kind = f"the {type(got).__name__} {got!r}" if isinstance(got, (float, bool)) else describe(got)
        raise Mismatch(f"{what} returned {kind}, expected an int: a number of bytes is whole, so multiply "
                       "the ints (no /, math.pow or tensors)")


@pytest.mark.points(2)
def test_kv_cache_bytes_llama2_7b(student):
    check_bytes(student, 32, 32, 128, 4096,
                what="kv_cache_bytes(32, 32, 128, 4096) (Llama-2 7B, 4,096 tokens in fp16: 2 GiB)")


@pytest.mark.parametrize("args, kwargs", [
    ((80, 8, 128, 4096), {}),  # Llama-2 70B: GQA with 8 KV heads
    ((32, 32, 128, 4096), {"batch_size": 32}),  # the chapter's 32 users at once: 64 GiB
    ((12, 12, 64, 1024), {"batch_size": 3, "bytes_per_value": 4}),  # GPT-2 small in fp32
], ids=["llama2-70b-gqa", "batch-of-32", "fp32"])
def test_kv_cache_bytes_cases(student, args, kwargs):
    names = ("n_layers", "n_kv_heads", "d_head", "seq_len")
    call = dict(zip(names, args), **kwargs)  # by keyword: the argument names are part of the contract
    text = ", ".join(f"{k}={v}" for k, v in call.items())
    check_bytes(student, what=f"kv_cache_bytes({text})", **call)


# -- KVCache --------------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_kvcache_update_returns_everything(student, rng, device, dtype):
    B, H_kv, d_head, max_len = 2, 2, 3, 8
    cache = make(student, "KVCache", B, H_kv, d_head, max_len, dtype=dtype, device=device)
    oracle = ref.KVCache(B, H_kv, d_head, max_len, dtype=torch.float64)
    past = 0
    for T in (3, 1, 2):
        k = randn(rng, B, H_kv, T, d_head, dtype=dtype, device=device)
        v = randn(rng, B, H_kv, T, d_head, dtype=dtype, device=device)
        reply = check_inputs_kept(cache, "update", k, v, names=["k", "v"])
        want_k, want_v = oracle.update(as64(k), as64(v))
        check_pair(cache, reply["value"], want_k, want_v, like=k,
                   what=f"cache.update(k, v) with {plural(T, 'new token')} after {past} (a KVCache of "
                        f"{dtype_text(dtype)})")
        past += T


def test_kvcache_len(student, rng):
    cache = make(student, "KVCache", 1, 2, 4, 10)  # default dtype: float32
    expect_len(cache, 0, "a new KVCache has len(cache) = {n}, expected {expected}: no token is cached yet")
    total = 0
    for T in (3, 4, 1):
        cache.update(randn(rng, 1, 2, T, 4), randn(rng, 1, 2, T, 4))
        total += T
        expect_len(cache, total, f"after updates of {total - T} and then {T} tokens " + "len(cache) is {n}, expected "
                   "{expected}: len is the number of tokens cached (dim 2), not of batch rows or heads")


def test_kvcache_reset(student, rng):
    cache = make(student, "KVCache", 2, 2, 3, 8)
    cache.update(randn(rng, 2, 2, 4, 3), randn(rng, 2, 2, 4, 3))
    cache.reset()
    expect_len(cache, 0, "after cache.reset() len(cache) is {n}, expected {expected}: reset must set the number of "
               "cached tokens back to 0 (the storage may stay)")
    k, v = randn(rng, 2, 2, 3, 3), randn(rng, 2, 2, 3, 3)
    check_pair(cache, cache.update(k, v), as64(k), as64(v),
               what="cache.update(k, v) with 3 tokens after 4 tokens and cache.reset()")


CAPACITY = "cache-capacity"  # the diagnosis of these messages, which name the mistake themselves


@pytest.mark.points(2)
def test_kvcache_full_raises_value_error(student, rng):
    cache = make(student, "KVCache", 2, 2, 3, 5)
    k1, v1 = randn(rng, 2, 2, 3, 3), randn(rng, 2, 2, 3, 3)
    cache.update(k1, v1)
    try:
        cache.update(randn(rng, 2, 2, 3, 3), randn(rng, 2, 2, 3, 3))
    except StudentError as error:
        if type(error) is not StudentError or error.type == "NotImplementedError":
            raise  # a forbidden call, the memory limit, a stub: the plugin reports those itself
        if error.type != "ValueError":
            raise Mismatch(f"appending 3 tokens to a KVCache(max_len=5) holding 3 raised {error.type}, expected "
                           "ValueError: check len(cache) + T_new <= max_len before writing", cause=CAPACITY) from None
    else:
        raise Mismatch("appending 3 tokens to a KVCache(max_len=5) holding 3 did not raise ValueError: check "
                       "len(cache) + T_new <= max_len before writing anything", cause=CAPACITY)
    expect_len(cache, 3, "after the refused update len(cache) is {n}, expected {expected}: raise the ValueError "
               "before changing anything", cause=CAPACITY)
    k2, v2 = randn(rng, 2, 2, 2, 3), randn(rng, 2, 2, 2, 3)
    try:
        got = cache.update(k2, v2)
    except StudentError as error:
        if error.type != "ValueError":
            raise
        raise Mismatch("filling a KVCache(max_len=5) exactly (3 cached + 2 new) raised ValueError: only refuse "
                       "when len(cache) + T_new > max_len", cause=CAPACITY) from None
    check_pair(cache, got, torch.cat([as64(k1), as64(k2)], 2), torch.cat([as64(v1), as64(v2)], 2),
               what="cache.update(k, v) with 2 tokens after 3 and a refused update")


@pytest.mark.hidden
def test_kvcache_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("half precision is checked on CUDA only")
    for dtype in HALF:
        cache = make(student, "KVCache", 2, 2, 8, 6, dtype=dtype, device=device)
        oracle = ref.KVCache(2, 2, 8, 6, dtype=torch.float64)
        for T in (2, 3):
            k, v = randn(rng, 2, 2, T, 8, dtype=dtype, device=device), randn(rng, 2, 2, T, 8, dtype=dtype,
                                                                            device=device)
            want_k, want_v = oracle.update(as64(k), as64(v))
            check_pair(cache, cache.update(k, v), want_k, want_v, like=k,
                       what=f"cache.update(k, v) in a KVCache of {dtype_text(dtype)}")


# -- CachedGroupedQueryAttention ------------------------------------------------------------


@pytest.mark.points(2)
def test_cached_gqa_without_cache(student, rng, device):
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference, device=device)
    x = randn(rng, 2, 7, GQA[0], device=device)
    check_forward(module, reference, x, what=f"{what}(x) with cache=None")


CHUNKINGS = {
    "whole": [9],
    "token-by-token": [1] * 9,
    "3+1+5": [3, 1, 5],
    "2+2+2+2+1": [2, 2, 2, 2, 1],
}


@pytest.mark.points(2)
@pytest.mark.parametrize("chunking", list(CHUNKINGS))
def test_cached_gqa_chunked(student, rng, device, chunking):
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference, device=device)
    x = randn(rng, 2, 9, GQA[0], device=device)
    cache = new_cache(student, reference, 2, 12, device=device)
    feed(module, cache, x, CHUNKINGS[chunking], reference, what=what,
         keyword=chunking in ("token-by-token", "2+2+2+2+1"))


@pytest.mark.hidden
@pytest.mark.parametrize("config", [MQA, MHA], ids=["MQA-4q-1kv", "MHA-5q-5kv"])
def test_cached_gqa_other_head_counts(student, rng, config):
    reference = reference_gqa(rng, config)
    module, what = load_cached(student, reference)
    x = randn(rng, 3, 8, config[0])
    feed(module, new_cache(student, reference, 3, 8), x, [4, 1, 3], reference, what=what)


def test_cached_gqa_float64(student, rng, device):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_cached(student, reference, dtype=torch.float64, device=device)
    x = randn(rng, 2, 6, GQA[0], dtype=torch.float64, device=device)
    cache = new_cache(student, reference, 2, 6, dtype=torch.float64, device=device)
    feed(module, cache, x, [2, 1, 3], reference, what=f"{what} in float64")


@pytest.mark.points(2)
def test_cached_gqa_reset_between_sequences(student, rng):
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference)
    cache = new_cache(student, reference, 2, 16)
    first, second = randn(rng, 2, 5, GQA[0]), randn(rng, 2, 6, GQA[0])
    feed(module, cache, first, [3, 2], reference, what=what)
    cache.reset()
    expect_len(cache, 0, "after 5 tokens and cache.reset() len(cache) is {n}, expected {expected}: reset must set "
               "the number of cached tokens back to 0, ready for the next sequence")
    feed(module, cache, second, [2, 1, 3], reference, what=f"{what} (a second sequence after reset)")


def test_cached_gqa_input_not_modified(student, rng):
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference)
    cache = new_cache(student, reference, 2, 8)
    for T in (3, 2):
        x = randn(rng, 2, T, GQA[0])
        check_inputs_kept(module, "__call__", x, names=["x"], cache=cache)


def test_cached_gqa_gradients(student, rng, device):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_cached(student, reference, dtype=torch.float64, device=device)
    x = randn(rng, 2, 5, GQA[0], dtype=torch.float64, device=device)
    upstream = randn(rng, 2, 5, GQA[0], dtype=torch.float64, device=device)
    check_module_gradients(module, reference, x, upstream, what=f"{what}(x) with cache=None")


@pytest.mark.points(2)
@pytest.mark.hidden
def test_cached_gqa_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("half precision is checked on CUDA only")
    for dtype in HALF:
        reference = reference_gqa(rng, GQA, dtype)
        module, what = load_cached(student, reference, dtype=dtype, device=device)
        x = randn(rng, 2, 6, GQA[0], dtype=dtype, device=device, scale=0.5)  # outputs ~0.25: well above atol
        cache = new_cache(student, reference, 2, 6, dtype=dtype, device=device)
        feed(module, cache, x, [3, 1, 2], reference, what=f"{what} in {dtype_text(dtype)}")
