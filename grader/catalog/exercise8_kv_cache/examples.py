"""Exercise 8: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py). A module is made anew at the smaller sizes; a call on a KV
cache that already holds tokens is not made smaller (its past would have to be shrunk with it)."""

from grader.diagnosis.examples import BATCH, Function, Module, Size, Tensor

EXAMPLES = {
    "kv_cache_bytes": Function({"n_layers": Size("n_layers"), "n_kv_heads": Size("n_kv_heads"), "d_head": Size("d_head"),
                                "seq_len": Size("seq_len"), "batch_size": Size("batch_size"),
                                "bytes_per_value": Size("bytes_per_value")}),
    "CachedGroupedQueryAttention": Module(
        {"d_model": Size(("n_kv_heads", "n_rep", "d_head")), "n_heads": Size(("n_kv_heads", "n_rep")),
         "n_kv_heads": Size("n_kv_heads")},
        {"x": Tensor((BATCH, "L", ("n_kv_heads", "n_rep", "d_head")))}),
}
