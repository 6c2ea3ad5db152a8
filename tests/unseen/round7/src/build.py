"""Build the corpus files from the stubs and the per-exercise specs in src/exN.py.

Each output file is the stub with every `raise NotImplementedError(...)` line replaced by the
body given for its function (key "func" or "Class.method"), after the header comment lines.
Usage: python src/build.py   (writes exerciseN/*.py next to src/)
"""
import sys

sys.dont_write_bytecode = True
import importlib.util
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUBS = Path("/work/corpus7/given/stubs")
STUB_NAMES = {
    1: "exercise1_projection.py", 2: "exercise2_scoring.py", 3: "exercise3_scaling.py",
    4: "exercise4_masking.py", 5: "exercise5_softmax.py", 6: "exercise6_multihead.py",
    7: "exercise7_gqa.py", 8: "exercise8_kv_cache.py", 9: "exercise9_head_patterns.py",
    10: "exercise10_tiled_attention.py",
}


def raise_sites(stub_lines):
    """[(line index, key, indent)] for every raise NotImplementedError line."""
    sites = []
    for i, line in enumerate(stub_lines):
        if line.strip().startswith("raise NotImplementedError("):
            indent = len(line) - len(line.lstrip())
            func = cls = None
            for j in range(i - 1, -1, -1):
                s = stub_lines[j]
                ind = len(s) - len(s.lstrip())
                m = re.match(r"\s*def (\w+)\(", s)
                if func is None and m and ind < indent:
                    func, func_ind = m.group(1), ind
                    continue
                m = re.match(r"\s*class (\w+)", s)
                if func is not None and m and ind < func_ind:
                    cls = m.group(1)
                    break
                if func is not None and s.strip() and ind == 0 and not s.startswith(("class", "def", "@")):
                    break
            sites.append((i, f"{cls}.{func}" if cls else func, indent))
    return sites


def render(n, entry, base):
    stub_lines = (STUBS / STUB_NAMES[n]).read_text().splitlines()
    bodies = dict(base)
    bodies.update(entry["bodies"])
    sites = {i: (key, ind) for i, key, ind in raise_sites(stub_lines)}
    missing = [k for k, _ in sites.values() if k not in bodies]
    if missing:
        raise SystemExit(f"exercise{n} {entry['slug']}: no body for {missing}")
    extra = set(entry["bodies"]) - {k for k, _ in sites.values()}
    if extra:
        raise SystemExit(f"exercise{n} {entry['slug']}: unknown keys {extra}")
    out = [f"# lumen-unseen: exercise={n} kind={entry['kind']}"]
    if entry["kind"] == "wrong":
        out.append(f"# mistake: {entry['mistake']}")
        out.append(f"# ideal: {entry['ideal']}")
    else:
        out.append(f"# method: {entry['method']}")
    out += [f"# expect: {r}" for r in entry["expect"]]
    out += [f"# reject: {r}" for r in entry["reject"]]
    for i, line in enumerate(stub_lines):
        if i in sites:
            key, ind = sites[i]
            body = textwrap.dedent(bodies[key]).strip("\n")
            out += [(" " * ind + b) if b.strip() else "" for b in body.splitlines()]
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def load_spec(n):
    spec = importlib.util.spec_from_file_location(f"spec{n}", ROOT / "src" / f"ex{n}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(which=None):
    for n in range(1, 11):
        if which and n not in which:
            continue
        path = ROOT / "src" / f"ex{n}.py"
        if not path.exists():
            continue
        spec = load_spec(n)
        d = ROOT / f"exercise{n}"
        d.mkdir(exist_ok=True)
        for old in d.glob("*.py"):
            old.unlink()
        slugs = set()
        for entry in spec.FILES:
            name = f"{entry['kind']}_{entry['slug']}.py"
            assert name not in slugs, name
            slugs.add(name)
            (d / name).write_text(render(n, entry, spec.BASE))
        print(f"exercise{n}: {len(spec.FILES)} files")


def W(slug, mistake, ideal, expect, reject, bodies):
    return dict(kind="wrong", slug=slug, mistake=mistake, ideal=ideal, expect=expect,
                reject=reject, bodies=bodies)


def H(slug, method, bodies, expect=None, reject=None):
    return dict(kind="honest", slug=slug, method=method, bodies=bodies,
                expect=expect or [r"✓|\bpass(es|ed)?\b|full marks|\bon par\b"],
                reject=reject or [r"✗", r"➜"])


if __name__ == "__main__":
    main({int(a) for a in sys.argv[1:]} or None)
