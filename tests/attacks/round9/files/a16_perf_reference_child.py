"""a16: in the performance phase the reference's timing child (trusted: unconfined, may read the
kit) lives beside the student's timing child, forked from the same zygote. From the timing child:
find it in /proc and read its environ, maps, mem, fd/, cwd/, root/ (the kit through its root),
signal it, or read the kit through /proc/PID/root. If anything works, the timed answers go
wrong on purpose, so the tier says "answered differently" (run.py reads that in the JSON)."""
import ctypes, math, os
libc = ctypes.CDLL(None, use_errno=True)
_hits = []
_me = os.getpid()
_kit = None
import sys
f = sys._getframe()
while f:
    if "/grader/" in f.f_code.co_filename:
        _kit = f.f_code.co_filename.split("/grader/")[0]
    f = f.f_back
for pid in [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != _me]:
    for what in ("environ", "maps", "mem", "fd", "cwd/", "root/", f"root{_kit}/lumen_ref/__init__.py" if _kit else "root/"):
        fd = libc.open(f"/proc/{pid}/{what}".encode(), 0)
        if fd >= 0:
            _hits.append(f"/proc/{pid}/{what}")
            libc.close(fd)
    if libc.syscall(62, pid, 0) == 0:
        _hits.append(f"kill({pid})")
print("pids", os.listdir("/proc")[:0], sorted(p for p in os.listdir("/proc") if p.isdigit()), "hits", _hits)
if _hits:
    print("BREAK:", _hits)


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k) + (1.0 if _hits else 0.0)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
