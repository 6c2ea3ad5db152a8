def scale_scores(s, d):
    return s


def scaled_scores(q, k):
    return q @ k.transpose(-2, -1)
