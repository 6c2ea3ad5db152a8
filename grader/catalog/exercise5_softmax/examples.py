"""Exercise 5: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py)."""

from grader.diagnosis.examples import BATCH, Function, Tensor

EXAMPLES = {
    "softmax": Function({"x": Tensor((BATCH, "rows", "L_k")), "dim": None}, picture="weights"),
    "scaled_dot_product_attention": Function(
        {"q": Tensor((BATCH, "L_q", "d_k")), "k": Tensor((BATCH, "L_k", "d_k")), "v": Tensor((BATCH, "L_k", "d_v")),
         "mask": Tensor((BATCH, "L_q", "L_k"), kind="mask")},
        labels=("output", "weights"), picture={1: "weights"}),
}
