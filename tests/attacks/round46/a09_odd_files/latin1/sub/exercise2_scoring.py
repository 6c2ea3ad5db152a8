# -*- coding: latin-1 -*-
import torch
# café
def attention_scores(q, k):
    """café"""
    return q @ k.transpose(-2, -1)
