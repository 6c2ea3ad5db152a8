"""Exercise 6: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py). A module is made anew at the smaller sizes."""

from grader.diagnosis.examples import BATCH, Function, Module, Size, Tensor

EXAMPLES = {
    "split_heads": Function({"x": Tensor((BATCH, "L", ("n_heads", "d_head"))), "n_heads": Size("n_heads")}),
    "merge_heads": Function({"x": Tensor((BATCH, "n_heads", "L", "d_head"))}),
    "MultiHeadAttention": Module({"d_model": Size(("n_heads", "d_head")), "n_heads": Size("n_heads"), "bias": None},
                                 {"x": Tensor(("B", "L", ("n_heads", "d_head"))),
                                  "mask": Tensor((BATCH, "L", "L"), kind="mask")}),
}
