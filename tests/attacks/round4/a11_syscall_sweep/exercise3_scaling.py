# Attack (sweep): every x86-64 system call number 0..470 that is not on the documented allowlist,
# called raw with harmless arguments (zeros / -1).  Any that does not answer EPERM (1) or ENOSYS (38)
# reached the kernel: listed.  Then resource-making calls one by one (message queues, semaphores,
# keys in the kernel keyring, timers, inotify, eventfd, epoll, signalfd, pidfd, mqueue, fsopen...).
import ctypes, math, os, errno
libc = ctypes.CDLL(None, use_errno=True)
ALLOWED = {0,1,257,2,3,8,262,5,4,6,217,79,267,89,83,258,87,263,84,269,439,21,12,9,11,25,10,28,56,435,60,231,
           273,334,202,186,39,204,24,14,13,15,62,234,129,297,228,230,98,318,302,72,16,157,45,44,51,55,110,102,107,104,108,63}
DANGEROUS_SKIP = {60, 231, 15, 62, 234, 129, 297, 56, 435, 57, 58, 59, 322, 520, 101, 169, 310, 311, 317, 435}
reached = []
for nr in range(0, 471):
    if nr in ALLOWED or nr in DANGEROUS_SKIP or 335 <= nr <= 423:  # 335-423: unassigned on x86-64 (this machine's kernel answers them with SIGILL even outside any sandbox)
        continue
    ctypes.set_errno(0)
    r = libc.syscall(nr, -1, 0, 0, 0, 0, 0)
    e = ctypes.get_errno()
    if not (r == -1 and e in (errno.EPERM, errno.ENOSYS)):
        reached.append((nr, r, e))
made = {}
tries = {"msgget": (68, 0, 0o1600), "semget": (64, 0, 1, 0o1600), "shmget": (29, 0, 4096, 0o1600),
         "add_key": None, "inotify_init1": (294, 0), "eventfd2": (290, 0, 0), "epoll_create1": (291, 0),
         "timerfd_create": (283, 1, 0), "signalfd4": None, "memfd_create": (319, b"x", 0),
         "userfaultfd": (323, 0), "io_uring_setup": None, "perf_event_open": None, "fsopen": (430, b"tmpfs", 0),
         "open_tree": (428, -100, b"/", 0), "mq_open": (240, b"/r4", 0o100 | 2, 0o600, None),
         "pipe2": None, "memfd_secret": (447, 0), "pidfd_open": (434, 1, 0), "fanotify_init": (300, 0, 0)}
for name, args in tries.items():
    if args is None:
        continue
    ctypes.set_errno(0)
    r = libc.syscall(*args)
    made[name] = (r, ctypes.get_errno())
print("ATTACK-SWEEP reached", reached, "made", {k: v for k, v in made.items() if v[0] != -1 or v[1] not in (1, 38)})
def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
