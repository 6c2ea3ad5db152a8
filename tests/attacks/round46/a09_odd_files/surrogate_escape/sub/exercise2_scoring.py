import torch
S = "\udcff"
def attention_scores(q, k):
    print(S)
    return q @ k.transpose(-2, -1)
