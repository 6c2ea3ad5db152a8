"""a05: reach other processes: kill(-1), kill(1) (the zygote), kill(ppid), kill(-pgrp of the
zygote), tgkill/rt_sigqueueinfo at another pid, pidfd_open, ptrace(ATTACH), process_vm_readv,
/proc/PID/mem, prctl(PR_SET_PDEATHSIG/PR_SET_PTRACER), setpgid into the zygote's group, ioctl TIOCSTI."""
import builtins as _b
_HELD = [0]


def print(*args, **kwargs):  # refused probes are counted, not printed (the report keeps few lines)
    text = " ".join(map(str, args))
    if text.startswith("held"):
        _HELD[0] += 1
    else:
        _b.print(*args, **kwargs)

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
