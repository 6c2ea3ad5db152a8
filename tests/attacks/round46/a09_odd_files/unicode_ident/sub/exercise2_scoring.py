import torch
def attention_scores(q, k):
    ｑ = q
    return ｑ @ k.transpose(-2, -1)
