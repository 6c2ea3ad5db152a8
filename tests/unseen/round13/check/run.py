"""Runs every file of /work/unseen13/exerciseN against check/exN.py and the expectations in specs/exN.py."""
import importlib.util, pathlib, signal, sys, warnings
sys.path.insert(0, str(pathlib.Path(__file__).parent))
warnings.filterwarnings("ignore")
import common
from build import load_spec

ROOT = pathlib.Path("/work/unseen13")


def load_checks(n):
    spec = importlib.util.spec_from_file_location(f"chk{n}", ROOT / "check" / f"ex{n}.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main(ns, verbose):
    bad = 0
    for n in ns:
        sp = load_spec(n)
        chk = load_checks(n)
        for v in sp.VARIANTS:
            fname = f"{v['kind']}_{v['name']}.py"
            path = ROOT / f"exercise{n}" / fname
            try:
                mod = common.load(path)
                res = chk.run(mod)
            except Exception as e:
                res = {"import": (False, f"{type(e).__name__}: {e}")}
            failed = {k: m for k, (ok, m) in res.items() if not ok}
            if v["kind"] == "honest":
                ok = not failed
                why = "; ".join(f"{k}: {m}" for k, m in failed.items())
            else:
                want = set(v["fails"])
                unknown = want - set(res)
                ok = bool(want & set(failed)) and not unknown and "import" not in failed
                why = f"expected one of {sorted(want)} to fail; failed: " + "; ".join(f"{k}: {m}" for k, m in failed.items())
            status = "OK " if ok else "BAD"
            bad += not ok
            if verbose or not ok:
                print(f"{status} ex{n} {fname}: {why if (not ok or verbose) else ''}")
            else:
                print(f"{status} ex{n} {fname}: fails {sorted(failed)}")
    print("mismatches:", bad)
    return bad


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "-v"]
    sys.exit(1 if main([int(a) for a in args] or range(1, 11), "-v" in sys.argv) else 0)
