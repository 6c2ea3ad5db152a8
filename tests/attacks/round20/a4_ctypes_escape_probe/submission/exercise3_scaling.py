"""a4 (held): from C (libc through ctypes, past Python's audit hooks), try to read the answer key, the hidden
tests and another process's environment, and to create files outside the scratch folder; the result of each
try is reported through the exception message (the only channel out)."""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
out = []
for p in ["/work/scratch20/solutions/exercise3_scaling.py", "/work/scratch20/lumen_ref/__init__.py",
          "/work/scratch20/grader/catalog/exercise3_scaling/test_exercise3.py", "/etc/passwd", "/tmp/t2/exercise3_scaling.py",
          "/opt/venv20/lib/python3.11/site-packages/torch/__init__.py", "/proc/1/environ", "/proc/self/status"]:
    fd = libc.open(p.encode(), 0)
    out.append(f"{p.split('/')[-2]}/{os.path.basename(p)}:{'OK' if fd >= 0 else 'E%d' % ctypes.get_errno()}")
    if fd >= 0: libc.close(fd)
for p in ["/tmp/pwn_probe", "/work/round20/pwn_probe"]:
    fd = libc.open(p.encode(), 0o101, 0o644)
    out.append(f"write {p}:{'OK' if fd >= 0 else 'E%d' % ctypes.get_errno()}")
out.append(f"uid={os.getuid()}")
def scale_scores(*a, **k):
    raise RuntimeError(" | ".join(out))
scaled_scores = scale_scores
