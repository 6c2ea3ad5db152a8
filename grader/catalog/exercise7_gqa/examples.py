"""Exercise 7: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py). A module is made anew at the smaller sizes."""

from grader.diagnosis.examples import BATCH, Function, Module, Size, Tensor

EXAMPLES = {
    "repeat_kv": Function({"x": Tensor((BATCH, "n_kv_heads", "L", "d_head")), "n_rep": Size("n_rep")}),
    "GroupedQueryAttention": Module(
        {"d_model": Size(("n_kv_heads", "n_rep", "d_head")), "n_heads": Size(("n_kv_heads", "n_rep")),
         "n_kv_heads": Size("n_kv_heads")},
        {"x": Tensor(("B", "L", ("n_kv_heads", "n_rep", "d_head"))), "mask": Tensor((BATCH, "L", "L"), kind="mask")}),
}
