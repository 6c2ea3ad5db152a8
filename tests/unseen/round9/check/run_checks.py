"""Run every corpus file against tests.py; check the stub lines and the headers."""
import importlib.util
import re
import sys
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import gen  # noqa: E402
import tests  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path("/work/unseen9")


def stub_lines_kept(n, path):
    stub = (gen.STUBS / gen.STUB_NAMES[n]).read_text().split("\n")
    text = path.read_text().split("\n")
    pos = 0
    for line in stub:
        if "raise NotImplementedError(" in line or not line.strip() or line.strip().startswith("#"):
            continue
        try:
            pos = text.index(line, pos) + 1
        except ValueError:
            return f"missing stub line: {line!r}"
    return None


def header_ok(n, path):
    lines = path.read_text().split("\n")
    kind = "wrong" if path.name.startswith("wrong_") else "honest"
    if lines[0] != f"# lumen-unseen: exercise={n} kind={kind}":
        return "bad first line"
    keys = [l.split(":", 1)[0] for l in lines[1:] if l.startswith("# ")][:20]
    if kind == "wrong":
        if not (lines[1].startswith("# mistake: ") and lines[2].startswith("# ideal: ") and lines[3].startswith("# expect: ")):
            return "bad wrong header"
    else:
        if lines[1:5] != ["# method: " + lines[1][10:], "# expect: " + gen.HONEST_EXPECT, "# reject: ✗", "# reject: ➜"]:
            return "bad honest header"
    for l in lines:
        if l.startswith(("# expect: ", "# reject: ")):
            re.compile(l.split(": ", 1)[1], re.I)
        elif not l.startswith("#"):
            break
    if "NotImplementedError" in path.read_text():
        return "NotImplementedError left"
    return None


def run_file(n, path):
    spec = importlib.util.spec_from_file_location(f"sub_{n}_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fails = []
    total = 0
    for name, fn in tests.TESTS[n](mod):
        total += 1
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {e}".split("\n")[0][:150]
            fails.append((name, msg))
    return total, fails


def main(which):
    bad = 0
    for n in which:
        for path in sorted((ROOT / f"exercise{n}").glob("*.py")):
            kind = path.name.split("_")[0]
            problems = [p for p in (stub_lines_kept(n, path), header_ok(n, path)) if p]
            try:
                total, fails = run_file(n, path)
            except Exception:  # noqa: BLE001
                total, fails = 0, [("import", traceback.format_exc().splitlines()[-1])]
            ok = (not fails) if kind == "honest" else (bool(fails) and fails[0][0] != "import")
            ok = ok and not problems
            bad += not ok
            flag = "OK " if ok else "BAD"
            print(f"{flag} ex{n} {path.name}: {total - len(fails)}/{total} pass {problems or ''}")
            for name, msg in fails[:4]:
                print(f"      fail [{name}] {msg}")
    print("BAD FILES:", bad)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or range(1, 11))
