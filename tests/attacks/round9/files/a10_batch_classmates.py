"""a10 (mallory, in a batch): from inside a classmate's batch, reach alice: write anywhere (a03),
read anywhere (a04: her job folder, the class folder, the gradebook, the batch's TMPDIR), signal
anything (a05). run.py then checks alice's row, her report and her files byte for byte."""
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
print("procs", sorted(p for p in os.listdir("/proc") if p.isdigit()))
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    d = _try(f"/proc/{pid}/cmdline")
    print("cmdline", pid, d[:150] if d else None)




import os, ctypes, signal
libc = ctypes.CDLL(None, use_errno=True)
me = os.getpid()
others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me]
def sc(name, nr, *args):
    r = libc.syscall(nr, *args)
    e = ctypes.get_errno()
    print(("BREAK: " if r >= 0 and not name.startswith("kill(self") else "held: ") + f"{name} -> {r} ({os.strerror(e) if r < 0 else 'ok'})")
for pid in others + [-1, 0]:
    sc(f"kill({pid}, 0)", 62, ctypes.c_int(pid), 0)
    sc(f"kill({pid}, SIGCONT)", 62, ctypes.c_int(pid), signal.SIGCONT)
for pid in others:
    sc(f"kill(-{pid}, 0)", 62, ctypes.c_int(-pid), 0)
    sc(f"tgkill({pid},{pid},0)", 234, pid, pid, 0)
    sc(f"rt_sigqueueinfo({pid})", 129, pid, 0, None)
    sc(f"pidfd_open({pid})", 434, pid, 0)
    sc(f"ptrace(ATTACH,{pid})", 101, 16, pid, 0, 0)
    sc(f"setpgid(0,{pid})", 109, 0, pid)
    sc(f"process_vm_readv({pid})", 310, pid, None, 0, None, 0, 0)
    fd = libc.open(f"/proc/{pid}/mem".encode(), 0)
    print(("BREAK: " if fd >= 0 else "held: ") + f"open /proc/{pid}/mem -> {fd}")
sc("prctl(PR_SET_PTRACER, -1)", 157, 0x59616d61, ctypes.c_long(-1), 0, 0, 0)
sc("prctl(PR_SET_DUMPABLE, 1)", 157, 4, 1, 0, 0, 0)
sc("setsid", 112)
sc("ioctl(0, TIOCSTI)", 16, 0, 0x5412, ctypes.c_char_p(b"x"))
sc("fcntl(2, F_SETOWN, 1)", 72, 2, 8, 1)
sc("kill(self, 0)", 62, me, 0)  # control: allowed




_b.print(f"held: {_HELD[0]} probes refused")
# ---- honest exercise 3 (so that the probe's markers, not the grade, tell the story) ----
import math as _m


def scale_scores(scores, d_k):
    return scores / _m.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
