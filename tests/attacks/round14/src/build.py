"""Builds /work/round14/<attack>/<variant>/exercise10_tiled_attention.py from _head + _full + _tiled + a tail."""
import os, sys
R = "/work/round14"
head, full, tiled = (open(f"{R}/{n}.py").read() for n in ("_head", "_full", "_tiled"))
for tail in sys.argv[1:]:
    name = os.path.basename(tail)[:-3]          # e.g. a1_probe_detect__cheat
    attack, variant = name.split("__")
    d = f"{R}/{attack}/{variant}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/exercise10_tiled_attention.py", "w") as f:
        f.write(head + "\n" + full + "\n\n" + tiled + "\n\n# ---- attack tail ----\n" + open(tail).read())
    os.system(f"chmod -R a+rwX {R}/{attack}")
    print(d)
