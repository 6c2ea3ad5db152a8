# attack: fill the child's only writable place (its scratch folder) in every way: files (inodes), bytes,
# a folder tree deeper than Python's recursion limit, names at NAME_MAX; then report what it reached
import os
info = {}
here = os.getcwd()
info["cwd"] = here
n = 0
try:
    while n < 100000:
        open(f"f{n}", "w").close(); n += 1
except OSError as e:
    info["files"] = f"{n} ({e.strerror})"
for i in range(50):
    try: os.unlink(f"f{i}")
    except OSError: pass
total = 0
try:
    with open("big", "wb") as f:
        while total < (1 << 31):
            f.write(b"x" * (1 << 20)); total += 1 << 20
except OSError as e:
    info["bytes"] = f"{total >> 20} MiB in one file ({e.strerror})"
total2 = 0
for j in range(20):
    try:
        with open(f"big{j}", "wb") as f:
            while True:
                f.write(b"y" * (1 << 20)); total2 += 1 << 20
    except OSError as e:
        last = e.strerror
info["more bytes"] = f"{total2 >> 20} MiB in more files ({last})"
depth = 0
fd = os.open(here, os.O_RDONLY)
try:
    while depth < 3000:
        os.mkdir("d", dir_fd=fd); new = os.open("d", os.O_RDONLY, dir_fd=fd); os.close(fd); fd = new; depth += 1
except OSError as e:
    info["depth"] = f"{depth} ({e.strerror})"
info["depth"] = depth
raise RuntimeError(repr(info))
