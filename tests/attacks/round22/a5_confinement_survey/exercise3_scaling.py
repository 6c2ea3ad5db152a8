"""a5: a survey of the child's confinement, run at import; the results are raised in the load error so the
report shows them. Honest functions would follow (not needed: this only looks)."""
import math, os, sys, socket, glob

R = []
def t(name, fn):
    try:
        r = fn()
        R.append(f"{name}: OK {str(r)[:80]!r}")
    except BaseException as e:
        R.append(f"{name}: {type(e).__name__} {str(e)[:70]}")

t("uid", lambda: (os.getuid(), os.geteuid(), os.getgid()))
t("cwd", os.getcwd)
t("ls /", lambda: sorted(os.listdir("/")))
t("ls /work", lambda: os.listdir("/work"))
t("ls /tmp", lambda: os.listdir("/tmp"))
t("ls kit", lambda: os.listdir("/work/scratch20"))
t("ls venv site", lambda: [n for n in os.listdir("/opt/venv20/lib/python3.11/site-packages") if "lumen" in n or "grader" in n][:5])
t("glob catalog", lambda: glob.glob("/work/scratch20/grader/catalog/*")[:3])
t("ls proc", lambda: [p for p in os.listdir("/proc") if p.isdigit()])
t("ppid cmdline", lambda: open(f"/proc/{os.getppid()}/cmdline").read(80))
t("proc 1 environ", lambda: open("/proc/1/environ").read(80))
t("self environ", lambda: sorted(os.environ)[:20])
t("fds", lambda: [(fd, os.readlink(f"/proc/self/fd/{fd}")) for fd in os.listdir("/proc/self/fd")])
t("socket new", lambda: socket.socket())
t("fork", os.fork)
t("kill ppid 0", lambda: os.kill(os.getppid(), 0))
t("write /tmp/x", lambda: open("/tmp/a5_probe", "w").write("x"))
t("write cwd", lambda: open("a5_probe", "w").write("x"))
t("scratch env", lambda: {k: v for k, v in os.environ.items() if "TMP" in k or "HOME" in k})
t("tempfile", lambda: __import__("tempfile").mkdtemp())
t("mmap shared", lambda: __import__("mmap").mmap(-1, 4096))
t("sys.modules grader", lambda: [m for m in sys.modules if m.startswith(("grader", "lumen"))][:20])
t("gc judge objs", lambda: [type(o).__name__ for o in __import__("gc").get_objects() if type(o).__module__.startswith("grader")][:10])
raise RuntimeError("SURVEY\n" + "\n".join(R))
