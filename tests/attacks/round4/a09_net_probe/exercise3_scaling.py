# Attack: reach local services: a TCP port on 127.0.0.1, a path Unix socket, an abstract Unix socket
# (listeners the runner started outside), by raw syscalls through ctypes (socket, socketpair), and by
# reusing the one inherited socket (connect/sendto with an address).
import ctypes, math, os, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
res = []
def sockaddr_un(path):
    b = path.encode() if isinstance(path, str) else path
    return struct.pack("H", socket.AF_UNIX) + b, 2 + len(b)
targets = {"abstract": b"\0r4-abstract-probe", "path": os.environ.get("R4_SOCK", "/tmp/r4-probe.sock")}
for fam, typ in ((1, 1), (1, 2), (2, 1), (10, 1), (16, 3), (17, 3)):
    fd = libc.syscall(41, fam, typ, 0)
    res.append(f"socket({fam},{typ}) -> {fd} errno {ctypes.get_errno()}")
    if fd >= 0:
        if fam == 1:
            for name, t in targets.items():
                addr, n = sockaddr_un(t)
                r = libc.connect(fd, addr, n)
                res.append(f"connect {name} -> {r} errno {ctypes.get_errno()}")
        if fam == 2:
            addr = struct.pack("!HH4s8x", 0, 0, b"") 
            addr = struct.pack("H", 2) + struct.pack("!H", 47123) + bytes([127, 0, 0, 1]) + b"\0" * 8
            r = libc.connect(fd, addr, 16)
            res.append(f"connect tcp -> {r} errno {ctypes.get_errno()}")
sv = (ctypes.c_int * 2)()
res.append(f"socketpair -> {libc.syscall(53, 1, 1, 0, sv)} errno {ctypes.get_errno()}")
for fd in range(3, 64):
    try:
        os.fstat(fd)
    except OSError:
        continue
    for name, t in targets.items():
        addr, n = sockaddr_un(t)
        r = libc.connect(fd, addr, n)
        res.append(f"inherited fd {fd} connect {name} -> {r} errno {ctypes.get_errno()}")
        r = libc.sendto(fd, b"R4PING", 6, 0, addr, n)
        res.append(f"inherited fd {fd} sendto {name} -> {r} errno {ctypes.get_errno()}")
print("ATTACK-NET", res)
def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
