"""Builds /work/unseen13/exerciseN/*.py from the stubs and the specs in specs/exN.py."""
import importlib.util, pathlib, re, sys, textwrap

SRC = pathlib.Path("/work/unseen13_src/exercises")
OUT = pathlib.Path("/work/unseen13")
HERE = pathlib.Path(__file__).parent


def load_spec(n):
    spec = importlib.util.spec_from_file_location(f"spec{n}", HERE / "specs" / f"ex{n}.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def build(n):
    sp = load_spec(n)
    stub = (SRC / sp.STUB).read_text()
    lines = stub.split("\n")
    raise_idx = [i for i, l in enumerate(lines) if l.strip().startswith("raise NotImplementedError(")]
    # last top-level import line
    imp = max(i for i, l in enumerate(lines) if re.match(r"^(import |from \S+ import )", l))
    d = OUT / f"exercise{n}"
    d.mkdir(parents=True, exist_ok=True)
    names = set()
    for v in sp.VARIANTS:
        fname = f"{v['kind']}_{v['name']}.py"
        assert fname not in names, fname
        names.add(fname)
        bodies = v["bodies"]
        assert len(bodies) == len(raise_idx), (fname, len(bodies), len(raise_idx))
        new = list(lines)
        for i, body in zip(reversed(raise_idx), reversed(bodies)):
            if body is None:
                body = sp.DEFAULT[raise_idx.index(i)]
            ind = re.match(r"^(\s*)", lines[i]).group(1)
            code = textwrap.dedent(body).strip("\n").split("\n")
            new[i:i + 1] = [(ind + c) if c.strip() else "" for c in code]
        helpers = v.get("helpers")
        if helpers:
            h = textwrap.dedent(helpers).strip("\n").split("\n")
            new[imp + 1:imp + 1] = ["", ""] + h
        tag = "mistake" if v["kind"] == "wrong" else "method"
        header = [
            f"# lumen-unseen: exercise={n} kind={v['kind']}",
            f"# {tag}: {v['what']}",
            f"# ideal: {v['ideal'] if v['kind'] == 'wrong' else 'full marks'}",
            f"# expect: {v['expect']}",
            f"# reject: {v['reject']}",
        ]
        for pat in (v["expect"], v["reject"]):
            re.compile(pat)
        (d / fname).write_text("\n".join(header + new))
    return d, sorted(names)


if __name__ == "__main__":
    ns = [int(a) for a in sys.argv[1:]] or range(1, 11)
    for n in ns:
        d, names = build(n)
        print(d, len(names))
