"""Appended to the correct solution of exercise 5: names every forbidden shortcut in comments and
strings, and has its own names that contain "softmax", without calling any of them. Full marks."""

# Not allowed here: torch.softmax, F.softmax, x.softmax(-1), torch.log_softmax,
# torch.special.softmax, F.scaled_dot_product_attention, nn.MultiheadAttention, import lumen_ref.
FORBIDDEN = ("torch.softmax", "torch.nn.functional.scaled_dot_product_attention", "lumen_ref", "grader")
_written_softmax = softmax  # noqa: F821 (the solution's, above this text)


def softmax(x, dim=-1):
    softmax_weights = _written_softmax(x, dim)  # "softmax" in a name is fine
    return softmax_weights
