"""Build the corpus files from the stubs and the specs in specs/spec_exN.py.

Each spec module defines EX (exercise number), STUB (stub file name), CORRECT (dict: function or
Class.method -> body source at indent 0), PRELUDE (optional default helper code) and VARIANTS (list
of dicts: slug, kind, mistake|method, ideal, expect, reject, bodies (overrides), prelude).
Every `raise NotImplementedError(...)` line of the stub is replaced by the body of its function.
"""
import glob
import importlib.util
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STUBS = "/work/corpus6/stubs"


def load_spec(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def enclosing(lines, idx):
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
            continue
        m = re.match(r"\s*class (\w+)", s)
        if func is not None and m and i2 < find:
            cls = m.group(1)
            break
        if func is not None and i2 == 0 and not s.startswith(("class", "@", "#")):
            break
    return f"{cls}.{func}" if cls else func


def build(stub_text, bodies, prelude):
    lines = stub_text.split("\n")
    out = []
    used = set()
    prelude_done = not prelude
    marker = "# Your part." in stub_text
    for i, line in enumerate(lines):
        if not prelude_done:
            if (marker and line.strip() == "# Your part.") :
                out.append(line)
                out.append("")
                out.extend(textwrap.dedent(prelude).strip("\n").split("\n"))
                out.append("")
                prelude_done = True
                continue
            if not marker and re.match(r"(def|class) ", line):
                out.extend(textwrap.dedent(prelude).strip("\n").split("\n"))
                out.append("")
                out.append("")
                prelude_done = True
        if "raise NotImplementedError(" in line:
            key = enclosing(lines, i)
            if key not in bodies:
                raise KeyError(key)
            used.add(key)
            ind = line[: len(line) - len(line.lstrip())]
            body = textwrap.dedent(bodies[key]).strip("\n")
            out.extend((ind + b) if b.strip() else "" for b in body.split("\n"))
            continue
        out.append(line)
    extra = set(bodies) - used
    if extra:
        raise KeyError(f"unused bodies {extra}")
    return "\n".join(out)


def header(ex, v):
    h = [f"# lumen-unseen: exercise={ex} kind={v['kind']}"]
    if v["kind"] == "wrong":
        h.append(f"# mistake: {v['mistake']}")
    else:
        h.append(f"# method: {v['method']}")
    h.append(f"# ideal: {v['ideal']}")
    if v["kind"] == "wrong":
        for e in v["expect"]:
            h.append(f"# expect: {e}")
        for r in v.get("reject", []):
            h.append(f"# reject: {r}")
    return "\n".join(h) + "\n"


def main():
    specs = sorted(f for f in os.listdir(os.path.join(HERE, "specs")) if f.startswith("spec_ex"))
    n = 0
    for old in glob.glob(os.path.join(ROOT, "exercise*", "*.py")):
        os.remove(old)  # rebuild from scratch: no stale files
    for f in specs:
        mod = load_spec(os.path.join(HERE, "specs", f))
        stub = open(os.path.join(STUBS, mod.STUB)).read()
        d = os.path.join(ROOT, f"exercise{mod.EX}")
        os.makedirs(d, exist_ok=True)
        for v in mod.VARIANTS:
            bodies = dict(mod.CORRECT)
            bodies.update(v.get("bodies", {}))
            prelude = v.get("prelude", getattr(mod, "PRELUDE", ""))
            text = header(mod.EX, v) + build(stub, bodies, prelude)
            path = os.path.join(d, f"{v['kind']}_{v['slug']}.py")
            open(path, "w").write(text)
            n += 1
    print("wrote", n, "files")


if __name__ == "__main__":
    main()
