"""Build the corpus files from the stubs and the variant tables in variants/exN.py.

Each corpus file is the stub with every `raise NotImplementedError(...)` line replaced by a body.
Run: /work/main/.venv/bin/python /work/round8/check/build.py
"""
import importlib.util
import pathlib
import re
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
STUBS = pathlib.Path("/work/main/exercises")
HONEST_EXPECT = [r"✓|\bpass(es|ed)?\b|full marks|\bon par\b"]
HONEST_REJECT = ["✗", "➜"]


def stub_path(n):
    (p,) = STUBS.glob(f"exercise{n}_*.py")
    return p


def raise_slots(lines):
    """[(line index, qualified function name, indent)] for every raise NotImplementedError line."""
    slots, cls, fn = [], None, None
    for i, line in enumerate(lines):
        m = re.match(r"^class (\w+)", line)
        if m:
            cls = m.group(1)
        m = re.match(r"^(\s*)def (\w+)", line)
        if m:
            fn = m.group(2) if m.group(1) == "" else f"{cls}.{m.group(2)}"
            if m.group(1) == "":
                cls = None if not line.startswith("class") else cls
        if "raise NotImplementedError(" in line:
            indent = line[: len(line) - len(line.lstrip())]
            slots.append((i, fn, indent))
    return slots


def render(n, v, default):
    lines = stub_path(n).read_text().splitlines()
    slots = {i: (fn, ind) for i, fn, ind in raise_slots(lines)}
    bodies = dict(default)
    bodies.update(v.get("bodies", {}))
    out = [f"# lumen-unseen: exercise={n} kind={v['kind']}"]
    if v["kind"] == "honest":
        out.append(f"# method: {v['method']}")
        out += [f"# expect: {e}" for e in HONEST_EXPECT]
        out += [f"# reject: {r}" for r in HONEST_REJECT]
    else:
        out.append(f"# mistake: {v['mistake']}")
        out.append(f"# ideal: {v['ideal']}")
        out += [f"# expect: {e}" for e in v["expect"]]
        out += [f"# reject: {r}" for r in v.get("reject", [])]
    for i, line in enumerate(lines):
        if i in slots:
            fn, ind = slots[i]
            body = textwrap.dedent(bodies[fn]).strip("\n")
            out += [(ind + b) if b.strip() else "" for b in body.splitlines()]
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def main(control=False):
    """control=True writes only the all-default version of each exercise (every function written the
    plain way, i.e. the parts the wrong files do not change) to check/control/, as a self-test."""
    total = 0
    for n in range(1, 11):
        vp = ROOT / "check" / "variants" / f"ex{n}.py"
        if not vp.exists():
            continue
        spec = importlib.util.spec_from_file_location(f"variants_ex{n}", vp)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        d = (ROOT / "check" / "control" if control else ROOT) / f"exercise{n}"
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob("*.py"):
            old.unlink()
        variants = mod.VARIANTS
        if control:
            variants = [dict(kind="honest", name="all_defaults", method="the plain default bodies used by the wrong files")]
        for v in variants:
            (d / f"{v['kind']}_{v['name']}.py").write_text(render(n, v, mod.DEFAULT))
            total += 1
    print(f"wrote {total} files")


if __name__ == "__main__":
    import sys
    main(control="--control" in sys.argv)
