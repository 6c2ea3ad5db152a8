import logging
import pathlib

import torch

# a log next to this file while I debug shapes
LOG_FILE = pathlib.Path(__file__).with_suffix(".log")
log = logging.getLogger("scoring")


def attention_scores(q, k):
    log.debug("q %s k %s", tuple(q.shape), tuple(k.shape))
    return torch.matmul(q, k.transpose(-1, -2))
