"""Exercise 8 — The KV cache: `kv_cache_bytes`, `KVCache` and `CachedGroupedQueryAttention`."""

import pytest
import torch

import lumen_ref as ref
from grader.catalog.exercise8_kv_cache.misconceptions import (BYTES_NOT_INT, CAPACITY, DTYPE_IGNORED, LEN_FROM_VALUES,
                                                           REALLOCATED, STORAGE_UNSEEN)
from grader.grading.compare import Mismatch, describe, dtype_text, plural, summarise
from grader.sandbox.judge import StudentError
from grader.grading.testkit import (
    NO_GRADIENT,
    UNFORESEEN,
    Made,
    Tracked,
    as64,
    call_text,
    check_device_kept,
    dims,
    check_forward,
    measure_call,
    watched_calls,
    check_inputs_kept,
    check_module_gradients,
    check_result,
    failing_call,
    load_module,
    make,
    passed,
    placed_on,
    randn,
    reference_module,
)

CACHED_VALUES = ("test_cached_gqa_without_cache", "test_cached_gqa_chunked")  # what the module's property tests wait on
DTYPES = [torch.float32, torch.float64]
HALF = [torch.float16, torch.bfloat16]

# (d_model, n_heads, n_kv_heads); every d_head is 3, not a power of two
GQA = (18, 6, 2)
_GQA = dict(d_model=18, n_heads=6, n_kv_heads=2, d_head=3)

# kv_cache_bytes: its arguments (B is batch_size); a KVCache: (B, n_kv_heads, max_len, d_head); the
# module: x (B, L, d_model), fed in chunks. tests/catalog/test_sizes.py holds every case to the rule.
SIZES = {
    "bytes[llama2-7b]": dict(n_layers=32, n_kv_heads=32, d_head=128, seq_len=4096, B=1, bytes_per_value=2,
                             edge="the chapter's Llama-2 7B example"),
    "bytes[llama2-70b-gqa]": dict(n_layers=80, n_kv_heads=8, d_head=128, seq_len=4096, B=1, bytes_per_value=2),
    "bytes[batch-of-32]": dict(n_layers=32, n_kv_heads=32, d_head=128, seq_len=4096, B=32, bytes_per_value=2,
                               edge="the chapter's 32 users at once"),
    "bytes[fp32]": dict(n_layers=6, n_kv_heads=5, d_head=96, seq_len=1000, B=3, bytes_per_value=4),
    "cache_update": dict(B=4, n_kv_heads=2, d_head=3, max_len=8),
    "cache_len": dict(B=1, n_kv_heads=2, d_head=4, max_len=10),
    "cache_reset": dict(B=3, n_kv_heads=2, d_head=4, max_len=8),
    "cache_full": dict(B=3, n_kv_heads=2, d_head=4, max_len=5),
    "cache_zero": dict(B=3, n_kv_heads=2, d_head=4, max_len=8),
    "cache_storage": dict(B=2, n_kv_heads=3, d_head=4, max_len=32, first=12),
    "cache_half": dict(B=3, n_kv_heads=2, d_head=8, max_len=6),
    "module": dict(B=4, L=7, **_GQA),
    "module_chunked": dict(B=4, L=9, max_len=12, **_GQA),
    "module_other[MQA-4q-1kv]": dict(B=3, L=8, d_model=12, n_heads=4, n_kv_heads=1, d_head=3, edge="multi-query"),
    "module_other[MHA-5q-5kv]": dict(B=3, L=8, d_model=15, n_heads=5, n_kv_heads=5, d_head=3,
                                     edge="n_kv_heads = n_heads: plain multi-head attention"),
    "module_float64": dict(B=4, L=7, max_len=7, **_GQA),
    "module_reset[first]": dict(B=4, L=5, max_len=16, **_GQA),
    "module_reset[second]": dict(B=4, L=7, max_len=16, **_GQA),
    "module_inputs": dict(B=4, L=5, max_len=8, **_GQA),
    "module_gradients": dict(B=4, L=5, **_GQA),
    "module_storage": dict(B=4, L=11, max_len=14, first=7, **_GQA),
}


def x_of(rng, name, **options):
    """x (B, L, d_model) of the SIZES case `name` (options: randn's)."""
    return randn(rng, *dims(SIZES[name], "B", "L", "d_model"), **options)


def kv_of(rng, name, T, **options):
    """k, v (B, n_kv_heads, T, d_head) for a KVCache of the SIZES case `name`."""
    size = SIZES[name]
    return tuple(randn(rng, size["B"], size["n_kv_heads"], T, size["d_head"], **options) for _ in "kv")


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
    """cache.update(k, v) returned (keys, values) equal to every token cached so far. Keys and values
    in torch's default float32 from a cache made in another dtype point at __init__, which makes the
    storage, not at update, which writes into it."""
    made = cache.made.kwargs.get("dtype")
    if made not in (None, torch.float32) and isinstance(got, (tuple, list)) and len(got) == 2 and \
            all(isinstance(t, torch.Tensor) and t.dtype == torch.float32 for t in got):
        raise Mismatch(f"{what} returned float32 keys and values from a KVCache made with dtype={made}: the "
                       "storage takes the cache's dtype, torch.zeros(shape, dtype=dtype, device=device) in __init__ "
                       "(without dtype= it is float32, torch's default), and update writes into it",
                       call=cache.last_call(), cause=DTYPE_IGNORED)
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
    for _ in feeding(module, cache, x, chunks, reference, what=what, keyword=keyword):
        pass


def feed_alternately(module, feeds, reference, *, what):
    """`feed` for several (cache, x, chunks), one call of each in turn on the one module: its position
    in a sequence is its cache's, never a count of its own (round 26's a14)."""
    steps = [feeding(module, cache, x, chunks, reference, what=f"{what} (sequence {n} of {len(feeds)}, fed in turn)")
             for n, (cache, x, chunks) in enumerate(feeds, 1)]
    while steps:
        steps = [step for step in steps if next(step, None) is not None]


def feeding(module, cache, x, chunks, reference, *, what, keyword=False):
    """`feed`, one call at a time: yields after each call's checks."""
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
        yield call


# -- kv_cache_bytes -------------------------------------------------------------------------


def check_bytes(student, *args, what, **kwargs):
    """The student's kv_cache_bytes(*args, **kwargs): the reference's number of bytes, as an int."""
    got = student.kv_cache_bytes(*args, **kwargs)
    expected = ref.kv_cache_bytes(*args, **kwargs)
    call = {"target": "kv_cache_bytes", "args": args, "kwargs": kwargs, "got": got}
    with failing_call(call):
        try:
            value = float(got)
        except (TypeError, ValueError, RuntimeError):
            raise Mismatch(f"{what} returned {describe(got)}, expected an int (a number of bytes)",
                           cause=BYTES_NOT_INT) from None
        if value != expected:
            raise Mismatch(f"{what} returned {summarise(got)}, expected {expected:,}: the cache holds 2 (keys and "
                           "values) × n_layers × n_kv_heads × d_head × seq_len × batch_size × bytes_per_value bytes")
        passed(call)
        if type(got) is not int:
            kind = f"the {type(got).__name__} {got!r}" if isinstance(got, (float, bool)) else describe(got)
            raise Mismatch(f"{what} returned {kind}, expected an int: a number of bytes is whole, so multiply "
                           "the ints (no /, math.pow or tensors)", cause=BYTES_NOT_INT)


@pytest.mark.points(2)
def test_kv_cache_bytes_llama2_7b(student):
    check_bytes(student, *dims(SIZES["bytes[llama2-7b]"], "n_layers", "n_kv_heads", "d_head", "seq_len"),
                what="kv_cache_bytes(32, 32, 128, 4096) (Llama-2 7B, 4,096 tokens in fp16: 2 GiB)")
    drawn = [UNFORESEEN.randrange(1, 1 << 10) for _ in range(4)]  # anew at each grading: a count, not a table
    check_bytes(student, *drawn, what=f"kv_cache_bytes({', '.join(map(str, drawn))})")


@pytest.mark.parametrize("case", ["llama2-70b-gqa", "batch-of-32", "fp32"])  # 70B: GQA with 8 KV heads
def test_kv_cache_bytes_cases(student, case):
    size = SIZES[f"bytes[{case}]"]
    names = ("n_layers", "n_kv_heads", "d_head", "seq_len")
    call = {name: size[name] for name in names}  # by keyword: the argument names are part of the contract
    call.update({"batch_size": size["B"]} if size["B"] != 1 else {})
    call.update({"bytes_per_value": size["bytes_per_value"]} if size["bytes_per_value"] != 2 else {})
    text = ", ".join(f"{k}={v}" for k, v in call.items())
    check_bytes(student, what=f"kv_cache_bytes({text})", **call)
    drawn = {name: UNFORESEEN.randrange(1, 1 << 7) for name in call}  # anew at each grading (below 2^53 bytes)
    drawn.update({"bytes_per_value": UNFORESEEN.choice((1, 4, 8))} if "bytes_per_value" in call else {})
    check_bytes(student, what=f"kv_cache_bytes({', '.join(f'{k}={v}' for k, v in drawn.items())})", **drawn)


# -- KVCache --------------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_kvcache_update_returns_everything(student, rng, device, dtype):
    B, H_kv, d_head, max_len = dims(SIZES["cache_update"], "B", "n_kv_heads", "d_head", "max_len")
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


@pytest.mark.needs_values("test_kvcache_update_returns_everything")  # not a bare counter: round 58's a03
def test_kvcache_len(student, rng):
    cache = make(student, "KVCache", *dims(SIZES["cache_len"], "B", "n_kv_heads", "d_head", "max_len"))  # float32
    expect_len(cache, 0, "a new KVCache has len(cache) = {n}, expected {expected}: no token is cached yet")
    total = 0
    for T in (3, 4, 1):
        cache.update(*kv_of(rng, "cache_len", T))
        total += T
        expect_len(cache, total, f"after updates of {total - T} and then {T} tokens " + "len(cache) is {n}, expected "
                   "{expected}: len is the number of tokens cached (dim 2), not of batch rows or heads")


@pytest.mark.needs_values("test_kvcache_update_returns_everything")
def test_kvcache_reset(student, rng):
    cache = make(student, "KVCache", *dims(SIZES["cache_reset"], "B", "n_kv_heads", "d_head", "max_len"))
    cache.update(*kv_of(rng, "cache_reset", 4))
    cache.reset()
    expect_len(cache, 0, "after cache.reset() len(cache) is {n}, expected {expected}: reset must set the number of "
               "cached tokens back to 0 (the storage may stay)")
    k, v = kv_of(rng, "cache_reset", 3)
    check_pair(cache, cache.update(k, v), as64(k), as64(v),
               what="cache.update(k, v) with 3 tokens after 4 tokens and cache.reset()")


def expect_refused(cache, T, cached, max_len, rng):
    """Appending T tokens to the cache holding `cached` of max_len raises ValueError and changes nothing."""
    what = f"appending {plural(T, 'token')} to a KVCache(max_len={max_len}) holding {cached}"
    try:
        cache.update(*kv_of(rng, "cache_full", T))
    except StudentError as error:
        if type(error) is not StudentError or error.type == "NotImplementedError":
            raise  # a forbidden call, the memory limit, a stub: the plugin reports those itself
        if not error.is_a("ValueError"):
            raise Mismatch(f"{what} raised {error.type}, expected ValueError: check len(cache) + T_new <= max_len "
                           "before writing", cause=CAPACITY) from None
    else:
        raise Mismatch(f"{what} did not raise ValueError: check len(cache) + T_new <= max_len before writing "
                       "anything", cause=CAPACITY)
    expect_len(cache, cached, "after the refused update len(cache) is {n}, expected {expected}: raise the "
               "ValueError before changing anything", cause=CAPACITY)


@pytest.mark.points(2)
def test_kvcache_full_raises_value_error(student, rng):
    """3 tokens, 3 more refused, 2 that fill max_len = 5 exactly, then 1 more refused."""
    max_len = SIZES["cache_full"]["max_len"]
    cache = make(student, "KVCache", *dims(SIZES["cache_full"], "B", "n_kv_heads", "d_head", "max_len"))
    k1, v1 = kv_of(rng, "cache_full", 3)
    cache.update(k1, v1)
    expect_refused(cache, 3, 3, max_len, rng)
    k2, v2 = kv_of(rng, "cache_full", 2)
    try:
        got = cache.update(k2, v2)
    except StudentError as error:
        if not error.is_a("ValueError"):
            raise
        raise Mismatch("filling a KVCache(max_len=5) exactly (3 cached + 2 new) raised ValueError: only refuse "
                       "when len(cache) + T_new > max_len", cause=CAPACITY,
                       **({"call": error.call} if getattr(error, "call", None) else {})) from None
    check_pair(cache, got, torch.cat([as64(k1), as64(k2)], 2), torch.cat([as64(v1), as64(v2)], 2),
               what="cache.update(k, v) with 2 tokens after 3 and a refused update")
    expect_refused(cache, 1, max_len, max_len, rng)


# -- rules of the KVCache docstring that no value shows ------------------------------------------


@pytest.mark.needs_values("test_kvcache_update_returns_everything")  # not a bare counter: round 58's a03
def test_kvcache_len_counts_tokens_whatever_their_values(student, rng):
    """Keys and values of zeros are tokens too: len counts what update appended, not non-zero slots."""
    size = SIZES["cache_zero"]
    cache = make(student, "KVCache", *dims(size, "B", "n_kv_heads", "d_head", "max_len"))
    total = 0
    for T, zeros in ((3, True), (2, False), (1, True)):
        k, v = kv_of(rng, "cache_zero", T)
        if zeros:
            k, v = torch.zeros_like(k), torch.zeros_like(v)
        cache.update(k, v)
        total += T
        kind = "all-zero keys and values" if zeros else "random keys and values"
        expect_len(cache, total, f"after updates of {total - T} and then {T} tokens ({T} of {kind}) len(cache) is "
                   "{n}, expected {expected}: a token whose key is all zeros is cached all the same; count the "
                   "tokens update appended (keep a counter), not the non-zero slots of the storage",
                   **({"cause": LEN_FROM_VALUES} if zeros else {}))


def allocates(cache, method, *args):
    """A cache's call that allocated too much, as a failure records it: its example measures the same
    call on a small cache (grader.catalog.exercise8_kv_cache.examples)."""
    return {"target": "KVCache", "object": cache.made, "method": method, "args": args, "kwargs": {}, "got": None,
            "check": "allocates"}


@pytest.mark.needs_values("test_kvcache_update_returns_everything")
def test_kvcache_reset_keeps_its_storage(student, rng):
    """reset forgets the tokens and keeps the storage, as the docstring says: it allocates no tensor as
    large as the cache's keys (measured by the grader's allocation probe: sizes, not time), nor does the
    first update after it (round 55's a03 dropped the storage in reset and made it anew there)."""
    B, H_kv, d_head, max_len = dims(SIZES["cache_storage"], "B", "n_kv_heads", "d_head", "max_len")
    cache = make(student, "KVCache", B, H_kv, d_head, max_len)  # float32
    cache.update(*kv_of(rng, "cache_storage", 3))
    storage_bytes = B * H_kv * max_len * d_head * 4  # the float32 keys' storage
    made = f"a KVCache({B}, {H_kv}, {d_head}, max_len={max_len})"
    held = held_storages(student, cache, 3 * B * H_kv * d_head * 4, f"{made} holding 3 tokens")
    measured = measure_call(student, cache.remote, method="reset", what="cache.reset's memory")
    keep = ("reset must keep the storage for the next sequence and only set the number of cached tokens back "
            "to 0")
    if measured["bytes"] >= storage_bytes:
        raise Mismatch(f"cache.reset() on {made} allocated a tensor of shape {tuple(measured['shape'])} "
                       f"({measured['bytes']:,} bytes, as large as the keys' whole storage): {keep}",
                       cause=REALLOCATED, call=allocates(cache, "reset"))
    cache.update(*kv_of(rng, "cache_storage", 1))  # one that raises here fails: the rule is checked here
    after = student.storages(cache.remote)
    new = sum(size for pointer, size in after.items() if pointer not in held)
    if new >= storage_bytes:
        # one that remakes its storage at every update copies its past: the update test's, one mistake one point
        cache.update(*kv_of(rng, "cache_storage", 1))
        if sum(size for pointer, size in student.storages(cache.remote).items() if pointer not in after):
            return
        raise Mismatch(f"after cache.reset() on {made}, the first update left the cache holding new storage of "
                       f"{new:,} bytes (the keys' whole storage takes {storage_bytes:,}): the storage was dropped "
                       f"and made again. {keep}", cause=REALLOCATED)


@pytest.mark.hidden
def test_kvcache_half_precision(student, rng, device):
    for dtype in HALF:
        config = dims(SIZES["cache_half"], "B", "n_kv_heads", "d_head", "max_len")
        cache = make(student, "KVCache", *config, dtype=dtype, device=device)
        oracle = ref.KVCache(*config, dtype=torch.float64)
        for T in (2, 3):
            k, v = kv_of(rng, "cache_half", T, dtype=dtype, device=device)
            want_k, want_v = oracle.update(as64(k), as64(v))
            check_pair(cache, cache.update(k, v), want_k, want_v, like=k,
                       what=f"cache.update(k, v) in a KVCache of {dtype_text(dtype)}")


# -- CachedGroupedQueryAttention ------------------------------------------------------------


@pytest.mark.points(2)
def test_cached_gqa_without_cache(student, rng, device):
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference, device=device)
    x = x_of(rng, "module", device=device)
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
    x = x_of(rng, "module_chunked", device=device)
    cache = new_cache(student, reference, x.shape[0], SIZES["module_chunked"]["max_len"], device=device)
    feed(module, cache, x, CHUNKINGS[chunking], reference, what=what,
         keyword=chunking in ("token-by-token", "2+2+2+2+1"))


@pytest.mark.hidden
@pytest.mark.parametrize("config", ["MQA-4q-1kv", "MHA-5q-5kv"])
def test_cached_gqa_other_head_counts(student, rng, config):
    size = SIZES[f"module_other[{config}]"]
    reference = reference_gqa(rng, dims(size, "d_model", "n_heads", "n_kv_heads"))
    module, what = load_cached(student, reference)
    x = x_of(rng, f"module_other[{config}]")
    feed(module, new_cache(student, reference, size["B"], size["L"]), x, [4, 1, 3], reference, what=what)


def test_cached_gqa_float64(student, rng, device):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_cached(student, reference, dtype=torch.float64, device=device)
    x = x_of(rng, "module_float64", dtype=torch.float64, device=device)
    cache = new_cache(student, reference, x.shape[0], SIZES["module_float64"]["max_len"], dtype=torch.float64,
                      device=device)
    feed(module, cache, x, [2, 1, 4], reference, what=f"{what} in float64")


@pytest.mark.points(2)
def test_cached_gqa_reset_between_sequences(student, rng):
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference)
    first, second = x_of(rng, "module_reset[first]"), x_of(rng, "module_reset[second]")
    cache = new_cache(student, reference, first.shape[0], SIZES["module_reset[first]"]["max_len"])
    feed(module, cache, first, [3, 2], reference, what=what)
    cache.reset()
    expect_len(cache, 0, "after 5 tokens and cache.reset() len(cache) is {n}, expected {expected}: reset must set "
               "the number of cached tokens back to 0, ready for the next sequence")
    feed(module, cache, second, [2, 1, 4], reference, what=f"{what} (a second sequence after reset)")
    caches = [new_cache(student, reference, x.shape[0], SIZES[f"module_reset[{name}]"]["max_len"])
              for name, x in (("first", first), ("second", second))]
    feed_alternately(module, [(caches[0], first, [2, 1, 2]), (caches[1], second, [3, 1, 1, 2])], reference, what=what)


@pytest.mark.needs_values(*CACHED_VALUES)
def test_cached_gqa_input_not_modified(student, rng):
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference)
    size = SIZES["module_inputs"]
    cache = new_cache(student, reference, size["B"], size["max_len"])
    for T in (3, 2):
        x = randn(rng, size["B"], T, size["d_model"])
        check_inputs_kept(module, "__call__", x, names=["x"], cache=cache)


def test_cached_gqa_gradients(student, rng, device):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_cached(student, reference, dtype=torch.float64, device=device)
    x = x_of(rng, "module_gradients", dtype=torch.float64, device=device)
    upstream = x_of(rng, "module_gradients", dtype=torch.float64, device=device)
    check_module_gradients(module, reference, x, upstream, what=f"{what}(x) with cache=None")


@pytest.mark.points(2)
@pytest.mark.needs_values("test_cached_gqa_without_cache", "test_cached_gqa_chunked")
def test_cached_gqa_trains_through_its_cache(student, rng, device):
    """forward(x, cache) on an empty cache trains as plain causal GQA on x: the keys and values the
    cache hands back still carry autograd's record to k_proj and v_proj (nothing detached)."""
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_cached(student, reference, dtype=torch.float64, device=device)
    size = SIZES["module_gradients"]
    x = x_of(rng, "module_gradients", dtype=torch.float64, device=device)
    upstream = x_of(rng, "module_gradients", dtype=torch.float64, device=device)
    try:
        check_module_gradients(module, reference, x, upstream, what=f"{what}(x, cache) with an empty cache",
                               fresh=lambda: {"cache": new_cache(student, reference, size["B"], size["L"],
                                                                 dtype=torch.float64, device=device)})
    except Mismatch as mismatch:
        if mismatch.details.get("cause") != NO_GRADIENT:
            raise
        # where the record is cut: without a cache the same forward trains, or that is the mistake
        check_module_gradients(module, reference, x, upstream, what=f"{what}(x) with cache=None")
        raise Mismatch(f"{mismatch.message} With cache=None the gradient does reach it: the cut is in your "
                       "KVCache, in what update writes into its storage or hands back (no .detach(), .data or "
                       "torch.no_grad() there)",
                       **{**mismatch.details, "call": {"target": "CachedGroupedQueryAttention", "object": module.made,
                                                       "method": "__call__", "args": (x,), "kwargs": {}, "got": None,
                                                       "check": "gradient", "gradient_cause": NO_GRADIENT}}) from None


@pytest.mark.points(2)
@pytest.mark.hidden
def test_cached_gqa_half_precision(student, rng, device):
    for dtype in HALF:
        reference = reference_gqa(rng, GQA, dtype)
        module, what = load_cached(student, reference, dtype=dtype, device=device)
        x = x_of(rng, "module_float64", dtype=dtype, device=device, scale=0.5)  # outputs ~0.25: well above atol
        cache = new_cache(student, reference, x.shape[0], x.shape[1], dtype=dtype, device=device)
        feed(module, cache, x, [3, 1, 3], reference, what=f"{what} in {dtype_text(dtype)}")


# -- devices: the storage and the decode mask are made on the inputs' device ----------------------


@pytest.mark.needs_values(*CACHED_VALUES)
def test_cached_gqa_on_the_inputs_device(student, rng, device):
    """Nothing made on the CPU: on CUDA itself, and on the CPU with x, the module and the cache on a
    stand-in device: a prompt of 3 tokens, then one more (a mask with past > 0)."""
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference, device=device)
    x = x_of(rng, "module_chunked")
    config = (x.shape[0], reference.n_kv_heads, reference.d_head, SIZES["module_chunked"]["max_len"])
    cache = check_device_kept(student, "KVCache", *config, device=device, device_arg="device",
                              what=call_text("KVCache", config, {"device": placed_on(device)}))
    cache = Tracked(cache, Made("KVCache", config, {"device": placed_on(device)}))
    for start, stop in ((0, 3), (3, 4)):
        check_device_kept(module, "__call__", x[:, start:stop], cache, device=device,
                          what=f"{what}(x[:, {start}:{stop}], cache) after {start} tokens")


@pytest.mark.needs_values("test_kvcache_update_returns_everything")
def test_kvcache_update_writes_into_its_storage(student, rng):
    """After `first` tokens, every update of 1 token until the cache is full allocates no tensor as large
    as the past keys: the cache writes into the storage __init__ allocated and returns views of it, as
    the docstring says (no torch.cat, no clone). Every fill level, not one: a cache that copied itself
    at every update but in the one state measured scored (round 22's a4). From `first` on, a copy of
    the past keys outweighs a bool mask of the whole storage (a len that counts non-zero slots: its own
    misconception). Nor does it write more into its storage than the new token (a copy of the past in
    place allocates nothing). Measured by the grader's allocation probe (sizes, not time); and so is
    every other update the suite made (this test comes last): KVCache.update is `watched`, so that code
    cannot copy its past only where it is not measured (round 28's a03 did so in exercise 1). Nor does a
    step of the module: the cache it is handed keeps its storages (round 54's a01 cloned the cache in its
    __len__, which the module calls)."""
    size = SIZES["cache_storage"]
    B, H_kv, d_head, max_len, first = dims(size, "B", "n_kv_heads", "d_head", "max_len", "first")
    cache = make(student, "KVCache", B, H_kv, d_head, max_len)  # float32
    for T in (first // 2, first - first // 2):
        cache.update(*kv_of(rng, "cache_storage", T))
    expect_len(cache, first, f"after updates of {first // 2} and {first - first // 2} tokens len(cache) is {{n}}, "
               "expected {expected}")
    made = f"a KVCache({B}, {H_kv}, {d_head}, max_len={max_len})"
    for past in range(first, max_len):
        k, v = kv_of(rng, "cache_storage", 1)
        measured = measure_call(student, cache.remote, k, v, method="update", what="cache.update's memory")
        allocated, copied = _copies_its_past(measured, 1, past, B * H_kv * d_head, 4)  # float32
        if copied:
            raise Mismatch(f"cache.update(k, v) with 1 new token after {past} ({made}) {copied}", cause=REALLOCATED,
                           call=allocates(cache, "update", k, v) if allocated else None)
    for call in watched_calls(student, "KVCache.update", what="cache.update's memory"):
        new, past, row, item_size = _update_sizes(call)
        _, copied = _copies_its_past(call.measured, new, past, row, item_size)
        if copied:
            raise Mismatch(f"one of the grader's other calls, cache.update(k, v) with {plural(new, 'new token')} "
                           f"after {past if past is not None else 'some'} (k of shape {tuple(call.args[0].shape)}), "
                           f"{copied}", cause=REALLOCATED)
    _check_module_steps(student, rng)


def _check_module_steps(student, rng):
    """One token at a time through the module: the cache it is handed holds no new storages after a step as
    large as its past keys (read without running the cache's code: no clone, no torch.cat, in any method)."""
    size = SIZES["module_storage"]
    B, L, max_len, first = dims(size, "B", "L", "max_len", "first")
    reference = reference_gqa(rng, GQA)
    module, what = load_cached(student, reference)
    cache = new_cache(student, reference, B, max_len)  # float32
    x = x_of(rng, "module_storage")
    module(x[:, :first], cache)  # a step that raises fails: code that raises only here would pass the rule
    token_bytes = B * reference.n_kv_heads * reference.d_head * 4  # one cached token's keys, float32
    for past in range(first, L):
        held = held_storages(student, cache, past * token_bytes, f"the cache of {what} holding {past} tokens")
        module(x[:, past:past + 1], cache)
        new = [size for pointer, size in student.storages(cache.remote).items() if pointer not in held]
        if sum(new) >= past * token_bytes:  # not a small tensor of its own (positions): as large as the past keys
            raise Mismatch(f"{what}(x[:, {past}:{past + 1}], cache) with {past} tokens cached left the cache holding "
                           f"{plural(len(new), 'new tensor storage')} of {sum(new):,} bytes (the {past} cached keys "
                           f"take {past * token_bytes:,}): a copy of its past (a clone or torch.cat, in update, "
                           "__len__ or any method forward calls), which the docstring says never happens. Keep the "
                           "storage __init__ made, write only the new tokens into its slice [:, :, start:end] and "
                           "return the views [:, :, :end]",
                           cause=REALLOCATED)


def held_storages(student, cache, least, what):
    """{data pointer: bytes} of the tensors the cache holds, read by the grader (its attributes at any depth),
    at least `least` bytes of them (its cached tokens' keys): a cache whose storage is kept elsewhere (a
    module's dict: round 53's a02) cannot be told to keep it."""
    held = student.storages(cache.remote)
    if sum(held.values()) < least:
        raise Mismatch(f"{what} holds {sum(held.values()):,} bytes of tensors in its attributes, where its cached "
                       f"keys take {least:,}: the grader cannot find the storage it keeps. Keep the keys and values "
                       "__init__ allocates in the cache's own attributes (self.k, self.v)", cause=STORAGE_UNSEEN)
    return held


def _update_sizes(call):
    """(new tokens, tokens cached before, entries per token, bytes per entry) of a watched update: its k
    (B, H_kv, T, d_head) and the keys it returned (B, H_kv, past + T, d_head) as meta tensors; `past` None
    where it returned no such keys (then the cache's dtype is read as k's)."""
    k = call.args[0] if call.args and isinstance(call.args[0], torch.Tensor) and call.args[0].dim() == 4 else None
    keys = call.value[0] if isinstance(call.value, (tuple, list)) and call.value else None
    if k is None:
        return 0, None, 0, 1
    new, (B, H_kv, _, d_head) = k.shape[-2], k.shape
    if isinstance(keys, torch.Tensor) and keys.dim() == 4 and keys.shape[-2] >= new:
        return new, keys.shape[-2] - new, keys.shape[0] * keys.shape[1] * keys.shape[3], keys.element_size()
    return new, None, B * H_kv * d_head, k.element_size()


def _copies_its_past(measured, new, past, row, item_size):
    """(whether it allocated, how) an update of `new` tokens after `past` (None: unknown) copied the tokens
    already cached, or (False, None): it wrote as many bytes as the past keys take into storage it kept from
    before, beyond the new keys and values (bytes, not entries: round 39's a03 copied through complex views),
    or allocated a tensor as large as the past keys (and larger than the new keys and values), or tensors as
    large together (a copy in pieces: round 46's a02); `row`: entries
    per token, `item_size`: bytes. With no past there is nothing to copy (a storage made at the first update is
    not a copy of a past); an unknown past is read as one token."""
    if past == 0:
        return False, None
    past = past or 1
    new_entries = 2 * new * row  # the new tokens' keys and values
    if measured["written"] - new_entries * item_size >= past * row * item_size:
        return False, (f"wrote {measured['written']:,} bytes into storage it kept from before (the new tokens' keys "
                       f"and values take {new_entries * item_size:,}): each update copies the tokens already cached, "
                       "which the docstring says it never does, allocating or not (round 34's a05, and round 35's a05 "
                       "in buffers of a plain object). Write only the new tokens into the slice [:, :, start:end] and "
                       "return the views [:, :, :end]")
    if measured["bytes"] >= past * row * item_size and measured["bytes"] > new_entries * item_size:
        return True, (f"allocated a tensor of shape {tuple(measured['shape'])} ({measured['bytes']:,} bytes; the {past} "
                      f"cached keys take {past * row * item_size:,}): each update makes something as large as the "
                      "cache, a copy of it (torch.cat, clone) or a computation over all of it (a count of its non-zero "
                      "rows, through len). Allocate the storage once in __init__, write the new tokens into its slice "
                      "[:, :, start:end] and return the views [:, :, :end]")
    if measured["peak"] >= past * row * item_size and measured["peak"] > new_entries * item_size:
        return True, (f"held {measured['peak']:,} bytes of tensors it made at once (the {past} cached keys take "
                      f"{past * row * item_size:,}): each update copies the cache in pieces (a clone per token, "
                      "round 46's a02). Allocate the storage once in __init__, write the new tokens into its slice "
                      "[:, :, start:end] and return the views [:, :, :end]")
    return False, None
