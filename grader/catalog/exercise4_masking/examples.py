"""Exercise 4: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py)."""

from grader.diagnosis.examples import BATCH, Function, Size, Tensor

EXAMPLES = {
    "causal_mask": Function({"L": Size("L"), "device": None}, picture="mask"),
    "padding_mask": Function({"lengths": Tensor(("B",), kind="lengths", at_most="L"), "L": Size("L")},
                             picture="mask"),
    "apply_mask": Function({"scores": Tensor((BATCH, "L_q", "L_k")), "mask": Tensor((BATCH, "L_q", "L_k"), kind="mask")},
                           picture="mask"),
}
