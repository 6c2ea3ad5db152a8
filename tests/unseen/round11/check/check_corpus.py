"""Runs every corpus file against the float64 reference tests; writes check_output.txt.

honest files must pass every test; wrong files must fail at least one test, including the ones
named in their spec ('fails'), and pass most of the rest. Also checks: the header, that each
header regex compiles, and that every stub line is kept verbatim and in order."""
import importlib.util, json, os, re, sys, traceback, warnings, io
sys.path.insert(0, os.path.dirname(__file__))
import torch
import corpus_lib as C
import harness
import tests_1_5, tests_6_10  # noqa: registers tests

ROOT = "/work/unseen11"
warnings.filterwarnings("ignore")


def load(path, tag):
    spec = importlib.util.spec_from_file_location(f"corpus_{tag}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_tests(n, mod):
    res = {}
    for name, fn in harness.TESTS[n]:
        try:
            fn(mod)
            res[name] = None
        except Exception as e:  # noqa
            msg = f"{type(e).__name__}: {e}".replace("\n", " ")
            res[name] = msg[:160]
    return res


def check_text(n, path):
    problems = []
    text = open(path).read()
    lines = text.splitlines()
    if not re.match(rf"# lumen-unseen: exercise={n} kind=(wrong|honest)$", lines[0]):
        problems.append("bad first header line")
    kind = re.match(r".*kind=(\w+)", lines[0]).group(1)
    want = "# mistake: " if kind == "wrong" else "# method: "
    if not lines[1].startswith(want):
        problems.append(f"second line must start with {want!r}")
    for l in lines[:12]:
        for key in ("expect", "reject"):
            if l.startswith(f"# {key}: "):
                try:
                    re.compile(l[len(f"# {key}: "):], re.I)
                except re.error as e:
                    problems.append(f"{key} regex does not compile: {e}")
    if not any(l.startswith("# expect: ") for l in lines[:12]):
        problems.append("no expect line")
    else:   # self-consistency: the header's own ideal diagnosis matches expect and no reject
        ideal = next(l[9:] for l in lines[:12] if l.startswith("# ideal: "))
        exp = next(l[10:] for l in lines[:12] if l.startswith("# expect: "))
        if not re.search(exp, ideal, re.I):
            problems.append("ideal does not match expect")
        for l in lines[:12]:
            if l.startswith("# reject: ") and re.search(l[10:], ideal, re.I):
                problems.append(f"ideal matches reject {l[10:]!r}")
    # stub lines verbatim and in order (raise lines excepted)
    stub = [l for l in C.stub_text(n).splitlines() if not C.RAISE.match(l)]
    it = iter(lines)
    for sl in stub:
        for l in it:
            if l == sl:
                break
        else:
            problems.append(f"stub line missing/out of order: {sl[:60]!r}")
            break
    if "NotImplementedError" in text:
        problems.append("still raises NotImplementedError")
    if re.search(r"chapter-\w+\.txt|/work/", text):
        problems.append("mentions a local path (e.g. the chapter's)")
    return problems


def main():
    manifest = json.load(open(f"{ROOT}/check/manifest.json"))
    out = io.StringIO()
    p = lambda *a: print(*a, file=out)
    p(f"torch {torch.__version__}; float64 reference tests per exercise: " +
      ", ".join(f"ex{n}={len(harness.TESTS[n])}" for n in range(1, 11)))
    bad = 0
    p("\n== base (plain correct versions, validate the tests against the reference) ==")
    for n in range(1, 11):
        res = run_tests(n, load(f"{ROOT}/check/base/ex{n}.py", f"base{n}"))
        fails = {k: v for k, v in res.items() if v}
        p(f"base ex{n}: {len(res) - len(fails)}/{len(res)} pass" + ("" if not fails else f"  FAILS {fails}"))
        bad += bool(fails)
    p("\n== corpus ==")
    summary = []
    for e in manifest:
        n, path = e["exercise"], f"{ROOT}/{e['file']}"
        probs = check_text(n, path)
        try:
            res = run_tests(n, load(path, e["file"].replace("/", "_")[:-3]))
        except Exception as ex:  # noqa
            res = {"import": f"{type(ex).__name__}: {ex}"}
        fails = {k: v for k, v in res.items() if v}
        ok = not probs
        if e["kind"] == "honest":
            ok = ok and not fails
            verdict = "OK (all pass)" if ok else "PROBLEM"
        else:
            missing = [t for t in e["fails"] if t not in fails]
            ok = ok and bool(fails) and not missing and len(fails) < len(res)
            verdict = "OK (caught)" if ok else f"PROBLEM (expected failing: {e['fails']}, missing {missing})"
        bad += not ok
        p(f"\n[{verdict}] {e['file']}  ({len(res) - len(fails)}/{len(res)} tests pass)")
        for pr in probs:
            p(f"    text problem: {pr}")
        for k, v in fails.items():
            p(f"    fails {k}: {v}")
        summary.append((e["file"], e["kind"], ok, len(fails), len(res)))
    p("\n== summary ==")
    p(f"files: {len(summary)}; honest OK: {sum(1 for s in summary if s[1] == 'honest' and s[2])}/"
      f"{sum(1 for s in summary if s[1] == 'honest')}; wrong caught as specified: "
      f"{sum(1 for s in summary if s[1] == 'wrong' and s[2])}/{sum(1 for s in summary if s[1] == 'wrong')}; problems: {bad}")
    text = out.getvalue()
    open(f"{ROOT}/check/check_output.txt", "w").write(text)
    print(text)
    return bad


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
