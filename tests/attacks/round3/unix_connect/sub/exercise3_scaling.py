import math, os, json, socket
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

# talk to a service of the grading user outside the sandbox (an ssh-agent, a D-Bus bus, docker.sock...)
path = os.environ.get("ATTACK_SOCK", "/tmp/u65534/agent.sock")
got = {}
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(path)
    s.sendall(b"hello from the sandbox\n")
    got["reply"] = s.recv(200).decode(errors="replace")
except BaseException as e:
    got["err"] = type(e).__name__ + ": " + str(e)[:80]
print("ATTACK" + json.dumps(got))
