"""Build the corpus files from the stubs: each `raise NotImplementedError(...)` line is replaced by code.

Specs live in check/spec/exN.py: STUB (file name of the stub) and FILES, a list of dicts with
name, kind, mistake|method, ideal, expect, reject (list), helpers (str), bodies (list of str, one per raise).
"""
import importlib
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(os.path.dirname(ROOT), "unseen12_src", "exercises")
HONEST_REJECT = r"\bis wrong\b|\bincorrect(ly)?\b|\b[1-9]\d* (tests? )?failed\b"


def build_one(n, stub_text, spec):
    lines = stub_text.split("\n")
    raise_idx = [i for i, l in enumerate(lines) if re.match(r"^\s*raise NotImplementedError\(", l)]
    bodies = spec["bodies"]
    assert len(raise_idx) == len(bodies), (spec["name"], len(raise_idx), len(bodies))
    out = list(lines)
    for i, body in reversed(list(zip(raise_idx, bodies))):
        indent = re.match(r"^(\s*)", lines[i]).group(1)
        code = textwrap.dedent(body).strip("\n").split("\n")
        out[i:i + 1] = [(indent + c) if c.strip() else "" for c in code]
    helpers = spec.get("helpers", "").strip("\n")
    if helpers:
        imp = [i for i, l in enumerate(out) if re.match(r"^(import |from \S+ import )", l)]
        last = imp[-1]
        out[last + 1:last + 1] = ["", ""] + textwrap.dedent(helpers).split("\n")
    head = [f"# lumen-unseen: exercise={n} kind={spec['kind']}"]
    if spec["kind"] == "wrong":
        head.append(f"# mistake: {spec['mistake']}")
        head.append(f"# ideal: {spec['ideal']}")
        head.append(f"# expect: {spec['expect']}")
    else:
        head.append(f"# method: {spec['method']}")
        head.append("# ideal: full marks")
        head.append("# expect: full marks|pass|correct|✓")
    rejects = spec.get("reject") or ([HONEST_REJECT] if spec["kind"] == "honest" else [])
    for r in rejects:
        head.append(f"# reject: {r}")
    for h in head:
        assert "\n" not in h
    return "\n".join(head) + "\n" + "\n".join(out)


def main(which=None):
    ns = range(1, 11) if not which else [int(w) for w in which]
    for n in ns:
        spec = importlib.import_module(f"spec.ex{n}")
        stub_text = open(os.path.join(SRC, spec.STUB)).read()
        d = os.path.join(ROOT, f"exercise{n}")
        os.makedirs(d, exist_ok=True)
        names = set()
        for f in spec.FILES:
            assert f["name"].startswith(f["kind"] + "_"), f["name"]
            assert f["name"] not in names
            names.add(f["name"])
            with open(os.path.join(d, f["name"] + ".py"), "w") as fh:
                fh.write(build_one(n, stub_text, f))
        kinds = [f["kind"] for f in spec.FILES]
        print(f"exercise{n}: {kinds.count('wrong')} wrong, {kinds.count('honest')} honest")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main(sys.argv[1:])
