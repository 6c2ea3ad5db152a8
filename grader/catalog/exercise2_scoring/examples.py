"""Exercise 2: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py)."""

from grader.diagnosis.examples import BATCH, Function, Tensor

EXAMPLES = {
    "attention_scores": Function({"q": Tensor((BATCH, "L_q", "d_k")), "k": Tensor((BATCH, "L_k", "d_k"))}),
}
