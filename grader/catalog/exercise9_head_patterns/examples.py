"""Exercise 9: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py). The patterns are only cut (their values are attention weights,
which small integers are not), each layer's alike for `find_heads`, whose list keeps its first
layers; `repeated_tokens` (random tokens) is not made smaller."""

from grader.diagnosis.examples import Function, Size, Tensor, Tensors

REPEATED = ("B", "H", (2, "seq_len"), (2, "seq_len"))  # a pattern on a sequence repeated twice

EXAMPLES = {
    "previous_token_score": Function({"pattern": Tensor(("B", "H", "L", "L"), kind="keep")}, smallest={"L": 2}),
    "induction_score": Function({"pattern": Tensor(REPEATED, kind="keep"), "seq_len": Size("seq_len")}),
    "find_heads": Function({"patterns": Tensors(Tensor(REPEATED, kind="keep"), count="layers"), "threshold": None}),
}
