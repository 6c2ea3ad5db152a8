"""Writes the 100 corpus files (and check/base/exN.py, a plain correct version used to validate the tests)."""
import os, re, json, sys
sys.path.insert(0, os.path.dirname(__file__))
import corpus_lib as C
from specs_a import S as SA
from specs_b import S as SB
from specs_c import S as SC

ROOT = "/work/unseen11"
SPECS = {**SA, **SB, **SC}


def main():
    manifest = []
    os.makedirs(f"{ROOT}/check/base", exist_ok=True)
    for n in range(1, 11):
        spec = SPECS[n]
        base = spec["base"]
        with open(f"{ROOT}/check/base/ex{n}.py", "w") as f:
            f.write(C.build(n, base))
        d = f"{ROOT}/exercise{n}"
        os.makedirs(d, exist_ok=True)
        names = set()
        for fs in spec["files"]:
            assert fs["name"] not in names
            names.add(fs["name"])
            kind = fs["kind"]
            assert fs["name"].startswith(kind + "_")
            if kind == "honest":
                bodies = fs["bodies"]
                assert isinstance(bodies, list)
            else:
                bodies = list(base)
                for i, b in fs["bodies"].items():
                    bodies[i] = b
            for r in [fs["expect"], *fs.get("rejects", [])]:
                re.compile(r, re.I)
            hdr = C.header(n, kind, fs["first"], fs["ideal"], fs["expect"], fs.get("rejects", []))
            text = C.build(n, bodies, fs.get("extra") or "", hdr)
            path = f"{d}/{fs['name']}.py"
            with open(path, "w") as f:
                f.write(text)
            manifest.append(dict(exercise=n, file=f"exercise{n}/{fs['name']}.py", kind=kind,
                                 summary=fs["first"], fails=fs.get("fails", [])))
        wrong = sum(1 for f in spec["files"] if f["kind"] == "wrong")
        honest = sum(1 for f in spec["files"] if f["kind"] == "honest")
        assert (wrong, honest) == (8, 2), (n, wrong, honest)
    with open(f"{ROOT}/check/manifest.json", "w") as f:
        json.dump(manifest, f, indent=1)
    print(len(manifest), "files written")


if __name__ == "__main__":
    main()
