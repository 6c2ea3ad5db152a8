# a04: on a machine with NVIDIA devices (every grading run there, even --device cpu: the plan adds
# CUDA's allowance whenever /dev/nvidia* exists) a child may call shmget/shmat. The child shares the
# host's IPC namespace, so a System V segment it creates outlives it, its grader and the batch:
# memory that --memory-limit never counted (shared, no RLIMIT_AS on a GPU) and that nobody frees.
# Here: SEGMENTS x 256 MiB, touched, never IPC_RMID'd, with --memory-limit 256M. Then honest code.
import ctypes
import math

import torch

SEGMENTS, SIZE = 4, 256 << 20
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_libc.shmat.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
_libc.shmdt.argtypes = (ctypes.c_void_p,)
LEFT = []
for _ in range(SEGMENTS):
    shmid = _libc.shmget(0, ctypes.c_size_t(SIZE), 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if shmid < 0:
        LEFT.append(-ctypes.get_errno())
        break
    addr = _libc.shmat(shmid, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        LEFT.append(-ctypes.get_errno())
        break
    ctypes.memset(addr, 1, SIZE)  # touch every page: real memory now
    _libc.shmdt(ctypes.c_void_p(addr))
    LEFT.append(shmid)
print("segments left behind:", LEFT)


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
