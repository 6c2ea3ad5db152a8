"""a06: get a network or a new channel: socket() for AF_INET/AF_INET6/AF_UNIX/AF_NETLINK/AF_PACKET
via the raw call, socketpair, connect/sendto with an address on the inherited socket (to an abstract
unix name and to 127.0.0.1), sendmsg with SCM_RIGHTS, accept, and opening /dev/tcp-like paths."""
import builtins as _b
_HELD = [0]


def print(*args, **kwargs):  # refused probes are counted, not printed (the report keeps few lines)
    text = " ".join(map(str, args))
    if text.startswith("held"):
        _HELD[0] += 1
    else:
        _b.print(*args, **kwargs)

import os, ctypes, struct, socket as _s
libc = ctypes.CDLL(None, use_errno=True)
def sc(name, nr, *args):
    r = libc.syscall(nr, *args)
    e = ctypes.get_errno()
    print(("BREAK: " if r >= 0 else "held: ") + f"{name} -> {r} ({os.strerror(e) if r < 0 else 'ok'})")
    return r
for fam, typ, name in ((2, 1, "inet tcp"), (2, 2, "inet udp"), (10, 1, "inet6"), (1, 1, "unix"),
                        (16, 3, "netlink"), (17, 3, "packet"), (40, 1, "vsock"), (2, 3, "raw")):
    sc(f"socket({name})", 41, fam, typ, 0)
sc("socketpair", 53, 1, 1, 0, ctypes.create_string_buffer(8))
fd = None
for f in os.listdir("/proc/self/fd"):
    try:
        if os.readlink(f"/proc/self/fd/{f}").startswith("socket:"):
            fd = int(f)
    except OSError:
        pass
sin = struct.pack("<HH4s8x", 2, _s.htons(80), bytes([127, 0, 0, 1]))
abstract = b"\x01\x00" + b"\x00a9abstract"
for addr, name in ((sin, "127.0.0.1:80"), (abstract, "abstract unix")):
    sc(f"connect(judge socket, {name})", 42, fd, addr, len(addr))
    sc(f"sendto(judge socket, {name})", 44, fd, b"", 0, 0, addr, len(addr))
sc("accept(judge socket)", 43, fd, None, None)
sc("listen(judge socket)", 50, fd, 1)
sc("shutdown(judge socket)", 48, fd + 100, 2)
sc("bind", 49, fd, abstract, len(abstract))
sc("io_uring_setup", 425, 8, ctypes.create_string_buffer(120))


_b.print(f"held: {_HELD[0]} probes refused")
# ---- honest exercise 3 (so that the probe's markers, not the grade, tell the story) ----
import math as _m


def scale_scores(scores, d_k):
    return scores / _m.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
