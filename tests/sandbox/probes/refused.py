"""Exercise 3's functions, plus `attempts()`: every system call the grader's child must not make,
made past Python (ctypes, raw numbers) with arguments the kernel itself would reject with another
error (EFAULT, EBADF, EINVAL, ...) or that would do nothing harmful, so that EPERM can only be the
filter's answer; the same calls through Python's own functions; and a few allowed calls as
controls. Returns {attempt: errno name, "ok", or the message Python raised}."""

import ctypes
import errno
import math
import os
import platform
import socket
import subprocess
import tempfile

NULL = None
# name -> (x86_64, aarch64) numbers (the kernel's unistd headers); None: no such call there
NUMBERS = {
    "chmod": (90, None), "fchmod": (91, 52), "fchmodat": (268, 53), "fchmodat2": (452, 452), "chown": (92, None),
    "fchown": (93, 55), "lchown": (94, None), "fchownat": (260, 54), "utime": (132, None), "utimes": (235, None),
    "utimensat": (280, 88), "futimesat": (261, None), "setxattr": (188, 5), "lsetxattr": (189, 6),
    "fsetxattr": (190, 7), "removexattr": (197, 14), "lremovexattr": (198, 15), "fremovexattr": (199, 16),
    "setxattrat": (463, 463), "removexattrat": (466, 466),
    "link": (86, None), "linkat": (265, 37), "symlink": (88, None), "symlinkat": (266, 36), "rename": (82, None),
    "renameat": (264, 38), "renameat2": (316, 276), "mknod": (133, None), "mknodat": (259, 33),
    "socket": (41, 198), "socketpair": (53, 199), "connect": (42, 203), "bind": (49, 200), "sendmsg": (46, 211),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "mount": (165, 40), "umount2": (166, 39), "unshare": (272, 97), "setns": (308, 268), "pivot_root": (155, 41),
    "chroot": (161, 51), "personality": (135, 92), "clone": (56, 220), "clone3": (435, 435), "execve": (59, 221),
    "memfd_create": (319, 279), "shmget": (29, 194), "io_uring_setup": (425, 425), "bpf": (321, 280),
    "perf_event_open": (298, 241), "userfaultfd": (323, 282), "keyctl": (250, 219), "pidfd_open": (434, 434),
    "pidfd_getfd": (438, 438), "pipe2": (293, 59), "prlimit64": (302, 261), "kill": (62, 129),
    "tgkill": (234, 131), "prctl": (157, 167), "fcntl": (72, 25), "ioctl": (16, 29), "mmap": (9, 222),
    "getpid": (39, 172), "setresuid": (117, 147), "seccomp": (317, 277),
}
CLONE_THREAD, CLONE_NEWNS, CLONE_FS, SIGCHLD = 0x10000, 0x20000, 0x200, 17
F_GETFD, F_SETOWN, F_SETPIPE_SZ, TCGETS, TIOCSTI = 1, 8, 1031, 0x5401, 0x5412
NOFILE, PR_SET_DUMPABLE = 7, 4
PROT_RW, MAP_SHARED_ANONYMOUS, MAP_PRIVATE_ANONYMOUS, MAP_GROWSDOWN = 3, 0x21, 0x22, 0x0100
NOBODY = 999_999_999  # no such process
# attempt -> (call, arguments): what the kernel alone would answer is in the comment
REFUSED = {
    "chmod": ("chmod", NULL, 0), "fchmod": ("fchmod", -1, 0),  # EFAULT, EBADF
    "fchmodat": ("fchmodat", -1, NULL, 0), "fchmodat2": ("fchmodat2", -1, NULL, 0, 0),  # EFAULT
    "chown": ("chown", NULL, 0, 0), "fchown": ("fchown", -1, 0, 0), "lchown": ("lchown", NULL, 0, 0),
    "fchownat": ("fchownat", -1, NULL, 0, 0, 0),
    "utime": ("utime", NULL, NULL), "utimes": ("utimes", NULL, NULL),  # EFAULT
    "utimensat": ("utimensat", -1, NULL, NULL, 0), "futimesat": ("futimesat", -1, NULL, NULL),  # EBADF
    "setxattr": ("setxattr", NULL, NULL, NULL, 0, 0), "lsetxattr": ("lsetxattr", NULL, NULL, NULL, 0, 0),
    "fsetxattr": ("fsetxattr", -1, NULL, NULL, 0, 0), "removexattr": ("removexattr", NULL, NULL),
    "lremovexattr": ("lremovexattr", NULL, NULL), "fremovexattr": ("fremovexattr", -1, NULL),
    "setxattrat": ("setxattrat", -1, NULL, 0, NULL, NULL, 0), "removexattrat": ("removexattrat", -1, NULL, 0, NULL),
    "link": ("link", NULL, NULL), "linkat": ("linkat", -1, NULL, -1, NULL, 0), "symlink": ("symlink", NULL, NULL),
    "symlinkat": ("symlinkat", NULL, -1, NULL), "rename": ("rename", NULL, NULL),
    "renameat": ("renameat", -1, NULL, -1, NULL), "renameat2": ("renameat2", -1, NULL, -1, NULL, 0),
    "mknod": ("mknod", NULL, 0, 0), "mknodat": ("mknodat", -1, NULL, 0, 0),
    "socket": ("socket", -1, 0, 0), "socketpair": ("socketpair", -1, 0, 0, NULL),  # EAFNOSUPPORT
    "connect": ("connect", -1, NULL, 0), "bind": ("bind", -1, NULL, 0), "sendmsg": ("sendmsg", -1, NULL, 0),
    "ptrace": ("ptrace", -1, NOBODY, 0, 0),  # EIO/ESRCH
    "process_vm_readv": ("process_vm_readv", 0, NULL, 0, NULL, 0, 1),  # EINVAL (flags)
    "process_vm_writev": ("process_vm_writev", 0, NULL, 0, NULL, 0, 1),
    "mount": ("mount", NULL, NULL, NULL, 0, NULL), "umount2": ("umount2", NULL, 0xFFFF),  # EFAULT, EINVAL
    "unshare": ("unshare", 0), "setns": ("setns", -1, 0),  # 0 (nothing to do), EBADF
    "pivot_root": ("pivot_root", NULL, NULL), "chroot": ("chroot", NULL),  # EPERM (no capability), EFAULT
    "personality": ("personality", ctypes.c_ulong(0xFFFFFFFF)),  # reads the persona: 0
    "clone into a new namespace": ("clone", CLONE_NEWNS | CLONE_FS | SIGCHLD, NULL, NULL, NULL, NULL),  # EINVAL
    "a thread in a new namespace": ("clone", CLONE_THREAD | CLONE_NEWNS, NULL, NULL, NULL, NULL),  # EINVAL
    "clone3": ("clone3", NULL, 0),  # EINVAL; the filter: ENOSYS
    "execve": ("execve", NULL, NULL, NULL), "memfd_create": ("memfd_create", NULL, 0),  # EFAULT
    "shmget": ("shmget", 0, 0, 0), "io_uring_setup": ("io_uring_setup", 0, NULL),  # EINVAL
    "bpf": ("bpf", -1, NULL, 0), "perf_event_open": ("perf_event_open", NULL, 0, -1, -1, 0),
    "userfaultfd": ("userfaultfd", -1), "keyctl": ("keyctl", -1, 0, 0, 0, 0), "seccomp": ("seccomp", -1, 0, NULL),
    "pidfd_open": ("pidfd_open", NOBODY, 0), "pidfd_getfd": ("pidfd_getfd", -1, -1, 0),  # ESRCH, EBADF
    "pipe2": ("pipe2", NULL, 0),  # EFAULT
    "raise a limit": ("prlimit64", 0, NOFILE, "current", NULL),  # 0 (the same value)
    "signal another process": ("kill", NOBODY, 0), "signal another thread": ("tgkill", NOBODY, NOBODY, 0),  # ESRCH
    "prctl PR_SET_DUMPABLE": ("prctl", PR_SET_DUMPABLE, 5, 0, 0, 0),  # EINVAL
    "fcntl F_SETPIPE_SZ": ("fcntl", -1, F_SETPIPE_SZ, 1 << 20), "fcntl F_SETOWN": ("fcntl", -1, F_SETOWN, 1),  # EBADF
    "ioctl TIOCSTI": ("ioctl", -1, TIOCSTI, NULL),  # EBADF
    "a shared mapping": ("mmap", NULL, 4096, PROT_RW, MAP_SHARED_ANONYMOUS, -1, 0),  # an address
    # a "stack" mapping, which RLIMIT_DATA does not count (an independent attacker held 1.2 GiB so)
    "a growsdown mapping": ("mmap", NULL, 4096, PROT_RW, MAP_PRIVATE_ANONYMOUS | MAP_GROWSDOWN, -1, 0),
    "setresuid": ("setresuid", -1, -1, -1),  # 0 (no change)
}
ALLOWED = {  # controls: the kernel's own answer comes back
    "getpid": ("getpid",), "fcntl F_GETFD": ("fcntl", -1, F_GETFD), "ioctl TCGETS": ("ioctl", -1, TCGETS, NULL),
    "read a limit": ("prlimit64", 0, NOFILE, NULL, "current"), "signal itself": ("kill", "self", 0),
    "a private mapping": ("mmap", NULL, 4096, PROT_RW, MAP_PRIVATE_ANONYMOUS, -1, 0),
}


def _call(name, *args):
    column = {"x86_64": 0, "aarch64": 1}[platform.machine()]
    number = NUMBERS[name][column]
    if number is None:
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    limit = (ctypes.c_uint64 * 2)()
    args = [ctypes.byref(limit) if a == "current" else os.getpid() if a == "self" else a for a in args]
    if name == "prlimit64" and args[2] is not NULL:  # the limit as it is: setting it changes nothing
        libc.syscall(number, 0, NOFILE, NULL, ctypes.byref(limit))
    ctypes.set_errno(0)
    result = libc.syscall(number, *args)
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]


def _python(action):
    try:
        action()
        return "ok"
    except OSError as error:
        return error.strerror


def attempts():
    """{attempt: outcome} for the raw calls, refused and allowed, and Python's own functions."""
    results = {name: _call(*call) for name, call in {**REFUSED, **ALLOWED}.items()}
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "mine.txt")
    open(path, "w").close()
    results.update({
        "os.chmod": _python(lambda: os.chmod(path, 0o600)),
        "os.chown": _python(lambda: os.chown(path, -1, -1)),
        "os.utime": _python(lambda: os.utime(path)),
        "os.link": _python(lambda: os.link(path, path + ".link")),
        "os.symlink": _python(lambda: os.symlink(path, path + ".symlink")),
        "os.rename": _python(lambda: os.rename(path, path + ".renamed")),
        "os.mkfifo": _python(lambda: os.mkfifo(path + ".fifo")),
        "os.setxattr": _python(lambda: os.setxattr(path, "user.x", b"1")),
        "socket.socket": _python(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
        "os.fork": _python(os.fork),
        "subprocess": _python(lambda: subprocess.run(["true"])),
    })
    return {name: outcome for name, outcome in results.items() if outcome is not None}


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
