"""Exercise 1: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py)."""

from grader.diagnosis.examples import BATCH, Function, Tensor

EXAMPLES = {
    "project": Function({"x": Tensor((BATCH, "L", "d_model")), "w_q": Tensor(("d_model", "d_k")),
                         "w_k": Tensor(("d_model", "d_k")), "w_v": Tensor(("d_model", "d_v"))},
                        labels=("q", "k", "v")),
    "fused_project": Function({"x": Tensor((BATCH, "L", "d_model")), "w_qkv": Tensor(("d_model", (3, "d")))},
                              labels=("q", "k", "v")),
}
