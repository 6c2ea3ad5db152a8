"""Imports the answer key (and the grader's NumPy oracle) inside its functions; the names are also
in this docstring and in a string, which is fine: lumen_ref, grader.oracle, solutions."""

MENTION = "import lumen_ref  # only a string"


def scale_scores(scores, d_k):
    import lumen_ref

    return lumen_ref.scale_scores(scores, d_k)


def scaled_scores(q, k):
    from grader import oracle

    return oracle
