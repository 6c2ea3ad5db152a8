"""Every corpus file graded by two trees of the kit, their JSON reports compared.

    python benchmarks/corpus_verdicts.py OLD_TREE NEW_TREE

Each tree is run with the interpreter of TREE/.venv (or a link to one) and the tree first on
PYTHONPATH, in a child process that grades every file of tests/submissions, tests/unseen,
tests/honest, tests/slow_submissions (by their exerciseN/ folders), tests/hostile (the exercise and
way of `tests/**/test_integrity.py`'s cases; the others as exercise3), solutions/ and exercises/
(the stubs), all from the NEW tree's corpora, on the CPU, seed 0, without timing (tiers measure
the machine, not the code). The reports are compared field by field, modulo `schema_version`, the
paths of the graded files and the tests' durations. A layout change must give the same verdicts
and diagnoses: exit status 0 when every report is the same, 1 otherwise (the differences printed).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CORPORA = ("tests/submissions", "tests/unseen", "tests/honest", "tests/slow_submissions")


def corpus(kit):
    """[(label, exercise name, the file's text, the file's suffix)] of every corpus file."""
    items = []
    for folder in CORPORA:
        for path in sorted((kit / folder).glob("exercise*/*")):
            if path.suffix in (".py", ".ipynb"):
                items.append((path.relative_to(kit).as_posix(), path.parent.name, path.read_text(), path.suffix))
    cases = {}
    for test in kit.glob("tests/**/test_integrity.py"):
        for match in re.finditer(r'Case\("(\w+\.py)"([^\n]*)', test.read_text()):
            exercise = re.search(r'exercise="(exercise\d+)"', match.group(2))
            cases.setdefault(match.group(1), (exercise.group(1) if exercise else "exercise3",
                                              "on_solution=True" in match.group(2)))
    solutions = {p.stem.split("_")[0]: p for p in (kit / "solutions").glob("exercise*.py")}
    for path in sorted((kit / "tests" / "hostile").glob("*.py")):
        exercise, on_solution = cases.get(path.name, ("exercise3", False))
        text = path.read_text().replace("@KIT@", "/nonexistent-kit")
        if on_solution:
            text = solutions[exercise].read_text() + "\n" + text
        items.append((path.relative_to(kit).as_posix(), exercise, text, ".py"))
    for folder in ("solutions", "exercises"):
        for path in sorted((kit / folder).glob("exercise*.py")):
            items.append((path.relative_to(kit).as_posix(), path.stem.split("_")[0], path.read_text(), ".py"))
    return items


def dump(items_file, out_file):
    """In the tree under test: grade every item, write {label: the report's dict}."""
    try:  # the layout by stage
        from grader.grading import runner
    except ImportError:  # the flat layout before it
        from grader import runner
    try:
        from grader.grading.settings import Settings
    except ImportError:  # before the settings had a module of their own
        Settings = runner.Options
    from grader import catalog
    from grader.sandbox.judge import Launcher

    items, reports = json.loads(Path(items_file).read_text()), {}
    launcher = Launcher()
    launcher.start()
    try:
        for label, name, text, suffix in items:
            exercise = catalog.find(name)
            with tempfile.TemporaryDirectory(prefix="lumen-corpus-") as folder:
                (Path(folder) / (exercise.stem + suffix)).write_text(text)
                limit = 5.0 if label.startswith("tests/hostile/") else 30.0
                verdict = runner.grade([exercise], Settings(submission=Path(folder), device="cpu",
                                                                  time_limit=limit, perf=False), launcher=launcher)
            reports[label] = verdict.to_dict()
            print(f"{label}: {verdict.score:g}/{verdict.max_score:g}", flush=True)
    finally:
        launcher.close()
    Path(out_file).write_text(json.dumps(reports))


def normalised(report):
    """The report without what may differ between two runs of equal code: its schema version, the
    graded file's path (a temporary folder), the tests' durations and the judge's process id (in what a
hostile file prints about its attempts on it)."""
    report = dict(report)
    report.pop("schema_version", None)
    for exercise in report.get("exercises", []):
        exercise["file"] = os.path.basename(exercise["file"])
        exercise["ignored"] = [os.path.basename(p) for p in exercise["ignored"]]
        for test in exercise["tests"]:
            test.pop("duration", None)
            test["message"] = re.sub(r"/tmp/lumen-corpus-\w+/", "", test["message"])
        exercise["output"] = re.sub(r"/proc/\d+/", "/proc/PID/", re.sub(r"/tmp/lumen-corpus-\w+/", "", exercise["output"]))
        if exercise["error"]:
            exercise["error"] = re.sub(r"/tmp/lumen-corpus-\w+/", "", exercise["error"])
    return report


def differences(old, new, where=""):
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            yield from differences(old.get(key, "<absent>"), new.get(key, "<absent>"), f"{where}.{key}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            yield from differences(a, b, f"{where}[{i}]")
    elif old != new:
        yield f"{where}: {str(old)[:200]!r} -> {str(new)[:200]!r}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--only", metavar="TEXT", help="grade only the corpus files whose path holds TEXT")
    parser.add_argument("--dump", nargs=2, metavar=("ITEMS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    items = [item for item in corpus(args.new.resolve()) if args.only is None or args.only in item[0]]
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "items.json").write_text(json.dumps(items))
        reports = {}
        for name, tree in (("old", args.old), ("new", args.new)):
            out = Path(work) / f"{name}.json"
            subprocess.run([str(tree.resolve() / ".venv" / "bin" / "python"), os.path.abspath(__file__), "-",
                            "-", "--dump", str(Path(work) / "items.json"), str(out)], cwd=work, check=True,
                           stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(tree.resolve())})
            reports[name] = json.loads(out.read_text())
    changed = 0
    for label, *_ in items:
        found = list(differences(normalised(reports["old"][label]), normalised(reports["new"][label])))
        if found:
            changed += 1
            print(f"{label}:\n  " + "\n  ".join(found[:10]))
    diagnosed = sum(bool(e["diagnoses"]) for r in reports["new"].values() for e in r["exercises"])
    print(f"{len(items)} corpus files graded by both trees ({diagnosed} with a diagnosis): "
          f"{len(items) - changed} identical, {changed} different (modulo schema_version, paths, durations, process ids)")
    return 1 if changed else 0


if __name__ == "__main__":
    if "--dump" in sys.argv:
        at = sys.argv.index("--dump")
        dump(sys.argv[at + 1], sys.argv[at + 2])
    else:
        sys.exit(main())
