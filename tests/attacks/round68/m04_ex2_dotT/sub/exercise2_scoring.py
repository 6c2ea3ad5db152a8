import torch

def attention_scores(q, k):
    return q @ k.T
