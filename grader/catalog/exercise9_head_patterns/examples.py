"""Exercise 9: how its functions' calls are made smaller, for the smallest example of a mistake
(see grader/diagnosis/examples.py). The patterns are only cut (their values are attention weights,
which small integers are not), each layer's alike for `find_heads`, whose list keeps its first
layers; `repeated_tokens` (random tokens) is made smaller by its ints, its answer held to its docstring's rules."""

import torch

from grader.diagnosis.examples import Drawn, Function, Size, Tensor, Tensors

REPEATED = ("B", "H", (2, "seq_len"), (2, "seq_len"))  # a pattern on a sequence repeated twice


def uniform(*shape):
    """Attention weights of `shape` whose every query spreads its weight evenly over the keys."""
    return torch.full(shape, 1.0 / shape[-1])


# patterns the docstrings refuse that no cut of a valid one makes, smallest first: one position, 3 dims, not square
NOT_A_PATTERN = (uniform(1, 1, 1, 1), uniform(1, 2, 2), uniform(1, 1, 2, 1), uniform(1, 1, 1, 2))

def token_rules(tokens, args):
    """The rule of repeated_tokens' docstring that `tokens` breaks, as a sentence, or None."""
    batch, seq_len, vocab = args["batch"], args["seq_len"], args["vocab_size"]
    if not isinstance(tokens, torch.Tensor):
        return "the answer is a tensor of token ids"
    if tuple(tokens.shape) != (batch, 2 * seq_len):
        return f"its shape is (batch, 2 * seq_len) = ({batch}, {2 * seq_len})"
    if tokens.dtype != torch.int64:
        return "token ids are int64 (torch.long)"
    if not torch.equal(tokens[:, :seq_len], tokens[:, seq_len:]):
        return "each row's second half is its first half again, in the same order"
    if int(tokens.min()) < 0 or int(tokens.max()) >= vocab:
        return f"token ids run from 0 to vocab_size - 1 = {vocab - 1}"
    return None


EXAMPLES = {
    "repeated_tokens": Drawn({"batch": Size("batch"), "seq_len": Size("seq_len"), "vocab_size": Size("vocab_size")},
                             token_rules, outcomes=lambda args: args["vocab_size"] ** (args["batch"] * args["seq_len"])),
    "previous_token_score": Function({"pattern": Tensor(("B", "H", "L", "L"), kind="keep")}, smallest={"L": 2},
                                     refused=tuple({"pattern": pattern} for pattern in NOT_A_PATTERN)),
    "induction_score": Function({"pattern": Tensor(REPEATED, kind="keep"), "seq_len": Size("seq_len")},
                                refused=({"pattern": uniform(1, 1, 2, 2), "seq_len": 2},  # L = 2, not twice 2
                                         {"pattern": uniform(1, 1, 3, 3), "seq_len": 1},  # one more than twice 1
                                         *({"pattern": pattern, "seq_len": 1} for pattern in NOT_A_PATTERN[1:]))),
    "find_heads": Function({"patterns": Tensors(Tensor(REPEATED, kind="keep"), count="layers"), "threshold": None},
                           refused=tuple({"patterns": [pattern]}  # an odd length first: no sequence repeated twice
                                         for pattern in (uniform(1, 1, 1, 1), uniform(1, 1, 3, 3), *NOT_A_PATTERN[1:]))),
}
