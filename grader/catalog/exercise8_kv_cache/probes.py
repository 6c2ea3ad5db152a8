"""Exercise 8: what the generic analysers (grader/diagnosis/analysers.py) know of its functions
(see grader/diagnosis/traits.py)."""

from grader.diagnosis.traits import Traits
from grader.catalog.exercise6_multihead.probes import MODULE

TRAITS = {
    "KVCache": Traits(roles=frozenset({"caches", "stores"}), method_labels={"update": ("keys", "values")}),
    "CachedGroupedQueryAttention": Traits(roles=MODULE | {"gqa", "decodes", "caches"}),
    "kv_cache_bytes": Traits(roles=frozenset({"counts"}),
                             quantities=("n_layers", "n_kv_heads", "d_head", "seq_len", "batch_size", "bytes_per_value"),
                             defaults={"batch_size": 1, "bytes_per_value": 2}),
}
