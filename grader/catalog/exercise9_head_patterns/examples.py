"""Exercise 9: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py). The patterns are only cut (their values are attention weights,
which small integers are not); `find_heads` (a list of patterns) and `repeated_tokens` (random
tokens) are not made smaller."""

from grader.diagnosis.examples import Function, Size, Tensor

EXAMPLES = {
    "previous_token_score": Function({"pattern": Tensor(("B", "H", "L", "L"), kind="keep")}, smallest={"L": 2}),
    "induction_score": Function({"pattern": Tensor(("B", "H", (2, "seq_len"), (2, "seq_len")), kind="keep"),
                                 "seq_len": Size("seq_len")}),
}
