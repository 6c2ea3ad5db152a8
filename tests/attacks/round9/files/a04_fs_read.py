"""a04: read secrets: the kit's trees by path (our stack names them), lumen_ref by import, the
editable install's finder map, /proc/<zygote> environ/cmdline/maps/fd/root, the log fd reopened for
reading, /etc/shadow, root's and the user's home, and any copy of the answer key in mounted trees."""
import builtins as _b
_HELD = [0]


def print(*args, **kwargs):  # refused probes are counted, not printed (the report keeps few lines)
    text = " ".join(map(str, args))
    if text.startswith("held"):
        _HELD[0] += 1
    else:
        _b.print(*args, **kwargs)

import os, sys, glob
_kit = None
f = sys._getframe()
while f:
    if "/grader/" in f.f_code.co_filename:
        _kit = f.f_code.co_filename.split("/grader/")[0]
    f = f.f_back
import ctypes
_libc = ctypes.CDLL(None, use_errno=True)
def _try(path, what="read"):
    """open+read through the C library (no audit event: the kernel layers alone decide)."""
    fd = _libc.open(path.encode(), 0)  # O_RDONLY (a folder opens too)
    if fd < 0:
        return None
    buf = ctypes.create_string_buffer(200)
    n = _libc.read(fd, buf, 200)
    _libc.close(fd)
    return buf.raw[:n] if n >= 0 else b"<folder opened>"
secret_paths = []
if _kit:
    secret_paths += [f"{_kit}/lumen_ref", f"{_kit}/solutions/exercise3_scaling.py", f"{_kit}/grader/catalog",
                     f"{_kit}/tests", f"{_kit}/grader/sandbox/judge.py"]
secret_paths += ["/etc/shadow", "/root", "/root/.bash_history", "/tmp", "/tmp/u65534", "/work", "/home"]
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    if int(pid) == os.getpid():
        continue
    secret_paths += [f"/proc/{pid}/environ", f"/proc/{pid}/maps", f"/proc/{pid}/fd", f"/proc/{pid}/root/",
                     f"/proc/{pid}/cwd/", f"/proc/{pid}/mem"]
for p in secret_paths:
    d = _try(p)
    if d is not None:
        print(f"BREAK: read {p}: {d[:80]!r}")
    else:
        print(f"held: {p}")
try:
    import importlib.util
    spec = importlib.util.find_spec("lumen_ref")
    print(("BREAK: lumen_ref findable " + str(spec.origin)) if spec and spec.origin and _try(spec.origin) else "held: lumen_ref not readable")
except BaseException as e:
    print("held: import lumen_ref:", type(e).__name__)
# any copy of the answer key's text in the site-packages we can read
import site
for sp in site.getsitepackages():
    for path in glob.glob(sp + "/*.py") + glob.glob(sp + "/*/__init__.py"):
        d = _try(path)
        if d is not None and (b"BEGIN SOLUTION" in d or b"lumen_ref" in d and b"MAPPING" not in d):
            print("BREAK: answer-key text in", path)
for path in glob.glob("/proc/1/*"):
    pass
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    d = _try(f"/proc/{pid}/cmdline")
    pass  # the zygote's command line (the judge's) is known: docs/security.md says so


_b.print(f"held: {_HELD[0]} probes refused")
# ---- honest exercise 3 (so that the probe's markers, not the grade, tell the story) ----
import math as _m


def scale_scores(scores, d_k):
    return scores / _m.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
