"""Validate corpus headers: format, and that each file's own `ideal` sentence matches all its
expect regexes and none of its reject regexes (case-insensitive)."""
import glob, re, sys, os
bad = 0
for p in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "exercise*", "*.py"))):
    lines = open(p).read().split("\n")
    m0 = re.fullmatch(r"# lumen-unseen: exercise=(\d+) kind=(wrong|honest)", lines[0])
    kind = os.path.basename(p).split("_")[0]
    ok = bool(m0) and m0.group(2) == kind and f"exercise{m0.group(1)}" == os.path.basename(os.path.dirname(p))
    ok &= lines[1].startswith("# mistake: " if kind == "wrong" else "# method: ")
    ok &= lines[2].startswith("# ideal: ")
    ideal = lines[2][len("# ideal: "):]
    exp = [l[len("# expect: "):] for l in lines if l.startswith("# expect: ")]
    rej = [l[len("# reject: "):] for l in lines if l.startswith("# reject: ")]
    ok &= len(exp) >= 1
    miss = [e for e in exp if not re.search(e, ideal, re.I)]
    hit = [r for r in rej if re.search(r, ideal, re.I)]
    if not ok or miss or hit:
        bad += 1
        print("BAD", p, "missing:", miss, "rejected:", hit)
print("header problems:", bad)
sys.exit(1 if bad else 0)
