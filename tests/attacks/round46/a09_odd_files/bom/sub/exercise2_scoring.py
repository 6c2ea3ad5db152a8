import torch
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
