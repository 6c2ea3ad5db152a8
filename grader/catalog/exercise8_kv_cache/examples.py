"""Exercise 8: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py). A KV cache, and the module that uses one, are tried as whole
small sequences of calls (their answers depend on what came before): one or two updates of a token
or two, a reset, a cache filled exactly or overfilled, at one head of width one first."""

import torch

from grader.diagnosis.examples import ON_STAND_IN, Function, Handle, Scenario, Size, Stateful

PLANS = ((1,), (1, 1), (2, 1), (1, "reset", 1), (1, 2))  # tokens per update, in order
HEADS = ((1, 1, 1), (1, 1, 2), (1, 2, 1), (2, 1, 1))  # (n_kv_heads, n_rep, d_head), smallest first


def tokens(start, T, shape):
    """T tokens counted on from `start` (1, 2, 3, ...), each token one value: shape (..., T, width)."""
    values = torch.arange(start, start + T, dtype=torch.float32)
    return values.reshape(T, 1).expand(*shape[:-2], T, shape[-1]).clone()


def cache_scenarios(call):
    """A KVCache at B = 1, one head of width 1, in the dtype the failing call's cache was made in: updates
    as PLANS say, len after each; then caches one token too small (the update that overfills it must
    raise ValueError). Tokens count from 1; then, the same again from 0 (a token of zeros is a token).
    For a failed check of what a call allocates, `storage_scenarios`."""
    if call.get("check") == "allocates":
        yield from storage_scenarios(call["method"])
        return
    made = call.get("object")
    dtype = made.kwargs.get("dtype") if made is not None and made.target == "KVCache" else None
    keywords = {**({} if dtype in (None, torch.float32) else {"dtype": dtype}), **on_device(call)}
    for first in (1, 0):
        for plan in PLANS:
            for spare in (0, 1):
                total = sum(n for n in plan if n != "reset") - (max(plan[-1], 1) if spare else 0)
                if total < 1 or (spare and plan == (1,)):
                    continue
                steps, start = [], first
                for T in plan:
                    if T == "reset":
                        steps.append(("cache", "reset", []))
                    else:
                        k = tokens(start, T, (1, 1, T, 1)).to(dtype or torch.float32)
                        steps += [("cache", "update", [k, -k]), ("cache", "__len__", [])]
                        start += T
                yield Scenario({"B": 1, "n_kv_heads": 1, "d_head": 1, "max_len": total},
                               [("cache", "KVCache", (1, 1, 1, total), keywords)], steps)


def storage_scenarios(method):
    """A float32 KVCache at B = 1, one head of width 1: `past` tokens, then one more ("update"), which must
    allocate less than the past keys (it writes into the storage); or then a reset, which must allocate
    less than the storage (it keeps it)."""
    for past in (2, 3, 4):
        k = tokens(1, past, (1, 1, past, 1))
        steps = [("cache", "update", [k, -k])]
        if method == "update":
            new = tokens(past + 1, 1, (1, 1, 1, 1))
            steps.append(("cache", "update", [new, -new]))
            limit, held = past * 4, f"the {past} cached tokens' keys"
        else:
            steps.append(("cache", "reset", []))
            limit, held = (past + 1) * 4, "the keys' whole storage"
        yield Scenario({"B": 1, "n_kv_heads": 1, "d_head": 1, "max_len": past + 1, "past": past},
                       [("cache", "KVCache", (1, 1, 1, past + 1), {})], steps, measured=limit, held=held)


def on_device(call):
    """A cache's device keyword where the failing call failed a device check: the stand-in for a GPU."""
    return {"device": ON_STAND_IN} if call.get("check") == "device" else {}


def module_scenarios(call):
    """CachedGroupedQueryAttention made at HEADS (B = 1) with a KVCache: the chunks of PLANS fed through it,
    len(cache) after each; for a failed gradient check, one chunk run backwards (its gradients must reach
    every weight through the cache)."""
    generator = torch.Generator().manual_seed(0)
    if call.get("check") == "gradient":
        for T in (1, 2):
            for n_kv, n_rep, d_head in HEADS:
                d_model = n_kv * n_rep * d_head
                x = torch.randint(-2, 3, (1, T, d_model), generator=generator).float()
                yield Scenario({"B": 1, "L": T, "n_kv_heads": n_kv, "n_rep": n_rep, "d_head": d_head},
                               [("attention", "CachedGroupedQueryAttention", (d_model, n_kv * n_rep, n_kv), {}),
                                ("cache", "KVCache", (1, n_kv, d_head, T), {})],
                               [("attention", "__call__", [x, Handle("cache")])], backward=True)
        return
    for plan in PLANS:
        for n_kv, n_rep, d_head in HEADS:
            d_model, total = n_kv * n_rep * d_head, sum(n for n in plan if n != "reset")
            steps = []
            for T in plan:
                if T == "reset":
                    steps.append(("cache", "reset", []))
                else:
                    x = torch.randint(-2, 3, (1, T, d_model), generator=generator).float()
                    steps += [("attention", "__call__", [x, Handle("cache")]), ("cache", "__len__", [])]
            yield Scenario({"B": 1, "n_kv_heads": n_kv, "n_rep": n_rep, "d_head": d_head, "max_len": total},
                           [("attention", "CachedGroupedQueryAttention", (d_model, n_kv * n_rep, n_kv), {}),
                            ("cache", "KVCache", (1, n_kv, d_head, total), on_device(call))], steps)


EXAMPLES = {
    "kv_cache_bytes": Function({"n_layers": Size("n_layers"), "n_kv_heads": Size("n_kv_heads"), "d_head": Size("d_head"),
                                "seq_len": Size("seq_len"), "batch_size": Size("batch_size"),
                                "bytes_per_value": Size("bytes_per_value")}),
    "KVCache": Stateful(cache_scenarios, labels={"update": ("keys", "values")}, names={"update": ("k", "v")}),
    "CachedGroupedQueryAttention": Stateful(module_scenarios, names={"__call__": ("x", "cache")}),
}
