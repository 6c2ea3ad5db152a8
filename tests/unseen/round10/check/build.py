"""Build /work/unseen10/exerciseN/*.py from the stubs and the specs in check/specs/exN.py.

Every stub line is kept verbatim and in order, except each `raise NotImplementedError(...)` line,
which is replaced by the body chosen for its function (keyed "func" or "Class.method").
Extra imports / helpers go right after the stub's last top-level import line.
"""
import glob
import importlib.util
import os
import re
import sys
import textwrap

SRC = "/work/unseen10_src/exercises"
OUT = "/work/unseen10"
STUBS = {
    1: "exercise1_projection.py", 2: "exercise2_scoring.py", 3: "exercise3_scaling.py",
    4: "exercise4_masking.py", 5: "exercise5_softmax.py", 6: "exercise6_multihead.py",
    7: "exercise7_gqa.py", 8: "exercise8_kv_cache.py", 9: "exercise9_head_patterns.py",
    10: "exercise10_tiled_attention.py",
}


def load_spec(n):
    path = os.path.join(OUT, "check", "specs", f"ex{n}.py")
    spec = importlib.util.spec_from_file_location(f"spec{n}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def raise_keys(lines):
    """For each raise line index, the qualified function key."""
    keys = {}
    cls = None
    func = None
    for i, line in enumerate(lines):
        m = re.match(r"^class (\w+)", line)
        if m:
            cls = m.group(1)
            continue
        m = re.match(r"^def (\w+)", line)
        if m:
            cls = None
            func = m.group(1)
            continue
        m = re.match(r"^    def (\w+)", line)
        if m and cls:
            func = f"{cls}.{m.group(1)}"
            continue
        if line.strip().startswith("raise NotImplementedError("):
            keys[i] = func
    return keys


def build_one(n, entry, correct, kind):
    stub = open(os.path.join(SRC, STUBS[n]), encoding="utf-8").read()
    lines = stub.split("\n")
    keys = raise_keys(lines)
    bodies = dict(entry.get("bodies", {}))
    if kind == "honest":
        missing = set(keys.values()) - set(bodies)
        assert not missing, (entry["name"], missing)
    unknown = set(bodies) - set(keys.values())
    assert not unknown, (entry["name"], unknown)
    out = []
    last_import = max(i for i, l in enumerate(lines) if re.match(r"^(import|from) \w", l))
    for i, line in enumerate(lines):
        if i in keys:
            key = keys[i]
            body = bodies.get(key, correct.get(key))
            assert body is not None, (entry["name"], key)
            indent = line[: len(line) - len(line.lstrip())]
            body = textwrap.dedent(body).strip("\n")
            out.extend(indent + b if b.strip() else "" for b in body.split("\n"))
        else:
            out.append(line)
        if i == last_import and entry.get("helpers"):
            out.append("")
            out.extend(textwrap.dedent(entry["helpers"]).strip("\n").split("\n"))
    header = [f"# lumen-unseen: exercise={n} kind={kind}"]
    if kind == "wrong":
        header.append(f"# mistake: {entry['mistake']}")
        header.append(f"# ideal: {entry['ideal']}")
        header.append(f"# expect: {entry['expect']}")
        for r in entry.get("reject", []):
            header.append(f"# reject: {r}")
    else:
        header.append(f"# method: {entry['method']}")
        header.append("# ideal: full marks")
    for h in header:
        assert "\n" not in h, h
    for rx in [entry.get("expect")] + list(entry.get("reject", [])):
        if rx:
            re.compile(rx, re.I)
    text = "\n".join(header + out)
    d = os.path.join(OUT, f"exercise{n}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, entry["name"] + ".py"), "w", encoding="utf-8") as f:
        f.write(text)
    compile(text, entry["name"], "exec")


def main(which):
    for n in which:
        spec = load_spec(n)
        for e in spec.WRONG + spec.HONEST:
            if "bodies" not in e:
                e["bodies"] = getattr(spec, "BODIES", {})[e["name"]]
        assert len(spec.WRONG) == 8 and len(spec.HONEST) == 2, n
        names = [e["name"] for e in spec.WRONG + spec.HONEST]
        assert len(set(names)) == 10, names
        for e in spec.WRONG:
            assert e["name"].startswith("wrong_")
            build_one(n, e, spec.CORRECT, "wrong")
        for e in spec.HONEST:
            assert e["name"].startswith("honest_")
            build_one(n, e, spec.CORRECT, "honest")
        for old in glob.glob(os.path.join(OUT, f"exercise{n}", "*.py")):
            if os.path.basename(old)[:-3] not in names:
                os.remove(old)
        print(f"exercise{n}: built {len(names)} files")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or list(range(1, 11)))
