"""Exercise 3: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py)."""

from grader.diagnosis.examples import BATCH, Function, Size, Tensor

EXAMPLES = {
    "scale_scores": Function({"scores": Tensor((BATCH, "L_q", "L_k")), "d_k": Size("d_k")}),
    "scaled_scores": Function({"q": Tensor((BATCH, "L_q", "d_k")), "k": Tensor((BATCH, "L_k", "d_k"))}),
}
