"""Run the checker: python run.py [N ...] (exercise numbers; default all). Writes results.json."""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import check  # noqa: E402
from common import load  # noqa: E402


def header(path):
    h = {}
    for line in open(path, encoding="utf-8"):
        if not line.startswith("# "):
            break
        mo = re.match(r"# (lumen-unseen|mistake|method|ideal|expect|reject): (.*)", line.rstrip("\n"))
        if mo:
            h.setdefault(mo.group(1), []).append(mo.group(2))
    return h


def check_file(n, path):
    h = header(path)
    kind = re.search(r"kind=(\w+)", h["lumen-unseen"][0]).group(1)
    try:
        mod = load(path)
    except Exception as e:  # noqa
        return dict(kind=kind, imported=False, error=repr(e), failed=[["import", repr(e)]], smoke={}, ntests=0)
    R, smoke = getattr(check, f"ex{n}")(mod)
    return dict(kind=kind, imported=True, failed=R.failed, smoke=smoke, ntests=len(R.results),
                what=(h.get("mistake") or h.get("method"))[0])


def main():
    ns = [int(a) for a in sys.argv[1:]] or list(range(1, 11))
    out_path = os.path.join(HERE, "results.json")
    allres = json.load(open(out_path)) if os.path.exists(out_path) else {}
    bad = 0
    for n in ns:
        for path in sorted(glob.glob(os.path.join(ROOT, f"exercise{n}", "*.py"))):
            rel = os.path.relpath(path, ROOT)
            r = check_file(n, path)
            allres[rel] = r
            ok_kind = (not r["failed"]) if r["kind"] == "honest" else bool(r["failed"])
            ran = r["imported"] and r["smoke"] and all(r["smoke"].values())
            flag = "OK " if ok_kind and ran else "BAD"
            bad += flag == "BAD"
            fails = "; ".join(f"{a}: {b}" for a, b in r["failed"][:3])
            print(f"{flag} {rel:50s} {r['kind']:6s} fails={len(r['failed'])}/{r['ntests']} smoke={r['smoke']} {fails[:300]}")
    json.dump(allres, open(out_path, "w"), indent=1, ensure_ascii=False)
    print("BAD:", bad)


if __name__ == "__main__":
    main()
