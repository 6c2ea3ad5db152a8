"""Builds corpus files: stub text verbatim, each `raise NotImplementedError(...)` line replaced by a body."""
import re, textwrap, os

SRC = "/work/unseen11_src/exercises"
STUBS = {1: "exercise1_projection.py", 2: "exercise2_scoring.py", 3: "exercise3_scaling.py",
         4: "exercise4_masking.py", 5: "exercise5_softmax.py", 6: "exercise6_multihead.py",
         7: "exercise7_gqa.py", 8: "exercise8_kv_cache.py", 9: "exercise9_head_patterns.py",
         10: "exercise10_tiled_attention.py"}
RAISE = re.compile(r"^(\s+)raise NotImplementedError\(.*\)\s*$")


def stub_text(n):
    with open(os.path.join(SRC, STUBS[n])) as f:
        return f.read()


def n_raises(n):
    return sum(1 for line in stub_text(n).splitlines() if RAISE.match(line))


def build(n, bodies, extra="", header=()):
    lines = stub_text(n).splitlines(keepends=True)
    raises = [i for i, l in enumerate(lines) if RAISE.match(l)]
    assert len(raises) == len(bodies), (n, len(raises), len(bodies))
    # where to put extra imports/helpers: after the last top-level import line before the first def/class/comment block
    last_imp = None
    for i, l in enumerate(lines):
        if l.startswith("def ") or l.startswith("class "):
            break
        if l.startswith("import ") or l.startswith("from "):
            last_imp = i
    out = []
    for i, l in enumerate(lines):
        if i in raises:
            ind = RAISE.match(l).group(1)
            body = textwrap.dedent(bodies[raises.index(i)]).strip("\n")
            for bl in body.splitlines():
                out.append((ind + bl if bl.strip() else "") + "\n")
        else:
            out.append(l)
        if i == last_imp and extra.strip():
            out.append(textwrap.dedent(extra).strip("\n") + "\n")
    return "".join(header) + "".join(out)


def header(n, kind, first, ideal, expect, rejects=()):
    key = "mistake" if kind == "wrong" else "method"
    h = [f"# lumen-unseen: exercise={n} kind={kind}\n", f"# {key}: {first}\n", f"# ideal: {ideal}\n",
         f"# expect: {expect}\n"]
    for r in rejects:
        h.append(f"# reject: {r}\n")
    for s in h:
        assert "\n" not in s[:-1], s
    return h
