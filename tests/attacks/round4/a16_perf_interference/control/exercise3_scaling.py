# Control: the same slow (sleeping) but idle student, without the spinning threads.
import math, time
def scale_scores(scores, d_k):
    time.sleep(0.7)
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    time.sleep(0.7)
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
