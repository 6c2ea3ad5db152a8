# a04: memory outside the limit: torch, bytearray, private mmap, the scratch tmpfs, many tensors; report what held
import warnings; warnings.simplefilter('ignore')
import math, mmap, os, resource, torch
R = []
def tryit(name, f):
    try:
        v = f(); R.append(f"{name}=OK:{str(v)[:60]}")
    except BaseException as e:
        R.append(f"{name}={type(e).__name__}:{str(e)[:60]}")
R.append("DATA=%s AS=%s NOFILE=%s FSIZE=%s" % tuple(resource.getrlimit(r)[0] for r in (resource.RLIMIT_DATA, resource.RLIMIT_AS, resource.RLIMIT_NOFILE, resource.RLIMIT_FSIZE)))
tryit("torch6G", lambda: torch.ones(6 << 30, dtype=torch.uint8).sum().item())
tryit("bytes6G", lambda: len(bytearray(6 << 30)))
def mm():
    m = mmap.mmap(-1, 6 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS); m[-1:] = b"x"; return len(m)
tryit("mmap6G", mm)
def norsv():
    m = mmap.mmap(-1, 6 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000); return len(m)  # MAP_NORESERVE
tryit("mmap_noreserve", norsv)
def fill():
    n = 0
    for i in range(200):
        with open(f"f{i}", "wb") as f:
            f.write(b"x" * (8 << 20)); n += 8
    return n
tryit("tmpfs_fill_MiB", fill)
def files():
    n = 0
    for i in range(6000):
        open(f"e{i}", "w").close(); n += 1
    return n
tryit("inodes", files)
def fds():
    h = [open("/dev/null") for _ in range(5000)]; return len(h)
tryit("fds", fds)
def ten():
    h = []
    for i in range(64):
        h.append(torch.ones(128 << 20, dtype=torch.uint8))
    return len(h) * 128
tryit("tensors_MiB", ten)
print("A04", " ".join(R))
def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
