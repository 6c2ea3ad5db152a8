def attention_scores(q, k):
    # every query against every key: (..., L_q, 1, d) * (..., 1, L_k, d), summed over d
    return (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(dim=-1)
