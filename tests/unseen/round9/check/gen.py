"""Build /work/unseen9/exerciseN/*.py from the stubs and the variant specs in spec_exN.py.

Each spec module defines VARIANTS: a list of dicts with
  name, kind ('wrong'|'honest'),
  wrong:  mistake, ideal, expect (list of regex), reject (list of regex, optional)
  honest: method
  helpers: optional text inserted after the stub's last top-level import
  bodies:  {qualname: code} replacing each `raise NotImplementedError(...)` line
"""
import importlib
import re
import sys
import textwrap
from pathlib import Path

STUBS = Path("/work/main/exercises")
OUT = Path("/work/unseen9")
HERE = Path(__file__).resolve().parent

STUB_NAMES = {
    1: "exercise1_projection.py", 2: "exercise2_scoring.py", 3: "exercise3_scaling.py",
    4: "exercise4_masking.py", 5: "exercise5_softmax.py", 6: "exercise6_multihead.py",
    7: "exercise7_gqa.py", 8: "exercise8_kv_cache.py", 9: "exercise9_head_patterns.py",
    10: "exercise10_tiled_attention.py",
}

HONEST_EXPECT = r"✓|\bpass(es|ed)?\b|full marks|\bon par\b"


def qualname_of(lines, idx):
    ind = len(lines[idx]) - len(lines[idx].lstrip())
    func = cls = None
    for j in range(idx - 1, -1, -1):
        s = lines[j]
        if not s.strip():
            continue
        i2 = len(s) - len(s.lstrip())
        m = re.match(r"\s*def (\w+)\(", s)
        if func is None and m and i2 < ind:
            func, find = m.group(1), i2
            if find == 0:
                return func
            continue
        m = re.match(r"class (\w+)", s)
        if func is not None and m:
            return f"{m.group(1)}.{func}"
    raise RuntimeError("no def found")


def build(n, v):
    stub = (STUBS / STUB_NAMES[n]).read_text().split("\n")
    out = []
    used = set()
    last_import = max(i for i, s in enumerate(stub) if re.match(r"(import|from) \w", s)
                      and i < next(k for k, t in enumerate(stub) if re.match(r"(def|class) ", t)))
    for i, line in enumerate(stub):
        if "raise NotImplementedError(" in line:
            q = qualname_of(stub, i)
            if q not in v["bodies"]:
                raise KeyError(f"ex{n} {v['name']}: no body for {q}")
            used.add(q)
            ind = line[: len(line) - len(line.lstrip())]
            body = textwrap.dedent(v["bodies"][q]).strip("\n")
            out.extend((ind + b) if b.strip() else "" for b in body.split("\n"))
        else:
            out.append(line)
        if i == last_import and v.get("helpers"):
            out.append("")
            out.extend(textwrap.dedent(v["helpers"]).strip("\n").split("\n"))
    extra = set(v["bodies"]) - used
    if extra:
        raise KeyError(f"ex{n} {v['name']}: unused bodies {extra}")
    head = [f"# lumen-unseen: exercise={n} kind={v['kind']}"]
    if v["kind"] == "wrong":
        head.append(f"# mistake: {v['mistake']}")
        ideal = " ".join(x.strip() for x in v["ideal"].strip().split("\n"))
        head.append(f"# ideal: {ideal}")
        for e in v["expect"]:
            head.append(f"# expect: {e}")
        for r in v.get("reject", []):
            head.append(f"# reject: {r}")
    else:
        head.append(f"# method: {v['method']}")
        head.append(f"# expect: {HONEST_EXPECT}")
        head.append("# reject: ✗")
        head.append("# reject: ➜")
    text = "\n".join(head) + "\n" + "\n".join(out)
    for line in head:
        if line.startswith(("# expect:", "# reject:")):
            re.compile(line.split(":", 1)[1].strip(), re.I)
    return text


def main(which):
    sys.path.insert(0, str(HERE))
    for n in which:
        spec = importlib.import_module(f"spec_ex{n}")
        d = OUT / f"exercise{n}"
        d.mkdir(parents=True, exist_ok=True)
        names = set()
        for v in spec.VARIANTS:
            fn = f"{v['kind']}_{v['name']}.py"
            assert fn not in names, fn
            names.add(fn)
            (d / fn).write_text(build(n, v))
        kinds = [v["kind"] for v in spec.VARIANTS]
        print(f"exercise{n}: {kinds.count('wrong')} wrong, {kinds.count('honest')} honest")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or range(1, 11))
