"""Diagnosis coverage: how many wrong submissions get a specific, correct explanation, on any corpus.

    python benchmarks/diagnosis_coverage.py tests/unseen            # the three figures
    python benchmarks/diagnosis_coverage.py tests/unseen --examples # and the smallest examples' figures
    python benchmarks/diagnosis_coverage.py tests/unseen --verbose  # and a line per file

A corpus is a folder of complete exercise files (at any depth), each starting with header comments:

    # lumen-unseen: exercise=3 kind=wrong        (or kind=honest: a correct solution)
    # mistake: <one line, plain words>
    # expect: <regex>     (one or more for a wrong file)
    # reject: <regex>     (zero or more)

A file of tests/submissions/ (no header) counts too: its docstring's `Diagnosis: <id>.` line is the one
diagnosis it must get (its `id`s, not its text), and `Diagnosis: none.` makes it an honest file.

Each file is graded as its exercise (`lumen-grade`'s runner, CPU, in this process, one sandbox).

What counts:
  * the diagnosis text of a file is what the JSON report's exercise `diagnoses` say: their
    `message`s, one per line. A file has a *specific* diagnosis when that text is not empty (the
    generic one-line `message` of each failed test, "wrong at [0, 1]: got x, expected y", is not a
    diagnosis: it says where, not what);
  * a specific diagnosis is *correct* when every `expect` regex matches the text (re.search,
    case-insensitive) and no `reject` regex does; otherwise it is *misleading*;
  * a diagnosis on an honest file is one too many, whatever it says.

The three figures: specific-and-correct / wrong files, misleading (should be 0), and diagnoses on
honest files (must be 0).

With --examples, the hint ladder's level 2 (grader.diagnosis.examples) too: of the wrong files with
a diagnosis, how many have an example of at most SMALL in every size (4×4), and whether every
example reproduces: the student's file is run again, in a fresh sandboxed process, on the example's
inputs as the report holds them (JSON), and its answer must still differ from lumen_ref's.
"""

import argparse
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.grading.settings import Settings  # noqa: E402 - after the repository is on the path

HEADER = re.compile(r"^#\s*lumen-unseen:\s*exercise=(\d+)\s+kind=(wrong|honest)\s*$")
SMALL = 4  # an example is small when none of its sizes is larger
DECLARED = re.compile(r"^Diagnosis: (\S+?)\.$", re.M)  # tests/submissions/: the id a file must get
FOLDER = re.compile(r"^exercise(\d+)$")


@dataclass
class Entry:
    path: Path
    exercise: int
    kind: str
    mistake: str = ""
    expect: list = field(default_factory=list)
    reject: list = field(default_factory=list)
    diagnosis: str = None  # a declared id (tests/submissions/): the one diagnosis it must get


def read_entry(path):
    """The header of a corpus file (or its declared diagnosis), or None if it has neither."""
    text = path.read_text(encoding="utf-8", errors="replace")
    declared, folder = DECLARED.search(text.split('"""')[1] if text.count('"""') >= 2 else ""), \
        FOLDER.match(path.parent.name)
    if declared and folder and not HEADER.match(text.lstrip().split("\n", 1)[0]):
        kind = "honest" if declared.group(1) == "none" else "wrong"
        mistake = " ".join(text.split('"""')[1].split("\n\n")[0].split())
        return Entry(path, int(folder.group(1)), kind, mistake, diagnosis=declared.group(1) if kind == "wrong" else None)
    lines = text.splitlines()
    entry = None
    for line in lines:
        if not line.startswith("#"):
            if line.strip():
                break
            continue
        found = HEADER.match(line.strip())
        if found:
            entry = Entry(path, int(found.group(1)), found.group(2))
            continue
        key, _, value = line.lstrip("#").strip().partition(":")
        if entry is not None and key in ("mistake", "expect", "reject"):
            value = value.strip()
            if key == "mistake":
                entry.mistake = value
            else:
                getattr(entry, key).append(value)
    return entry


def verdict(entry, text, ids=()):
    """'correct', 'misleading' or 'none' for a wrong file; 'clean' or 'diagnosed' for an honest one."""
    if entry.kind == "honest":
        return "diagnosed" if text else "clean"
    if not text:
        return "none"
    if entry.diagnosis:
        return "correct" if list(ids) == [entry.diagnosis] else "misleading"
    if all(re.search(p, text, re.I) for p in entry.expect) and not any(re.search(p, text, re.I) for p in entry.reject):
        return "correct"
    return "misleading"


def grade_all(entries, time_limit, examples=False):
    """{path: (diagnosis text, passed, the diagnoses, [does each example reproduce])} grading each file as its exercise, one file per exercise per run."""
    from grader import catalog
    from grader.grading import runner
    from grader.sandbox.judge import Launcher

    launcher = Launcher()
    launcher.start()
    results = {}
    try:
        pending = list(entries)
        while pending:
            batch, seen = [], set()
            for entry in pending:
                if entry.exercise not in seen:
                    batch.append(entry)
                    seen.add(entry.exercise)
            pending = [entry for entry in pending if entry not in batch]
            with tempfile.TemporaryDirectory(prefix="lumen-coverage-") as folder:
                exercises = []
                for entry in batch:
                    exercise = catalog.find(str(entry.exercise))
                    shutil.copyfile(entry.path, Path(folder) / exercise.file_name)
                    exercises.append(exercise)
                report = runner.grade(exercises, Settings(submission=Path(folder), device="cpu",
                                                                time_limit=time_limit, perf=False), launcher=launcher)
            for entry, result in zip(batch, report.exercises):
                text = "\n".join(d["message"] for d in result.diagnoses)
                shown = [d["example"] for d in result.diagnoses if "example" in d]
                reproduced = [reproduces(entry, example, launcher, time_limit) for example in shown] if examples else []
                results[entry.path] = (text, result.passed, result.diagnoses, reproduced)
    finally:
        launcher.close()
    return results


def reproduces(entry, example, launcher, time_limit):
    """Does the file, run again on the example read back from JSON, still differ from lumen_ref?"""
    import json

    from grader import catalog
    from grader.diagnosis import examples
    from grader.grading.settings import DEFAULTS
    from grader.grading.student import Student

    exercise = catalog.find(str(entry.exercise))
    with tempfile.TemporaryDirectory(prefix="lumen-example-") as logs:
        student = Student(exercise, str(entry.path), launcher, logs, time_limit, DEFAULTS.memory_limit)
        try:
            return examples.reproduces(student, exercise, json.loads(json.dumps(example)))
        except Exception as error:  # noqa: BLE001 - a benchmark reports, it does not stop
            print(f"  {entry.path}: the example could not be rerun: {type(error).__name__}: {error}")
            return False
        finally:
            student.close()


def small(example):
    """Every size of the example is at most SMALL."""
    return all(value <= SMALL for value in example["sizes"].values() if isinstance(value, int))


def report_examples(entries, graded, verbose):
    """The level-2 figures: examples that exist, are small, and reproduce."""
    diagnosed = [entry for entry in entries if entry.kind == "wrong" and graded[entry.path][2]]
    wrong = sum(entry.kind == "wrong" for entry in entries)
    with_example = small_files = 0
    reproduced = total = 0
    for entry in diagnosed:
        _, _, diagnoses, rerun = graded[entry.path]
        shown = [d["example"] for d in diagnoses if "example" in d]
        with_example += bool(shown)
        small_files += bool(shown) and all(map(small, shown))
        total += len(rerun)
        reproduced += sum(rerun)
        if verbose:
            where = entry.path.relative_to(entry.path.parents[1])
            sizes = "; ".join(f"{e['function']} {e['sizes']}" for e in shown) or "no example"
            print(f"example    {where}: {sizes}" + ("" if all(rerun) else "  (DOES NOT REPRODUCE)"))
    print(f"wrong files with a diagnosis: {len(diagnosed)} / {wrong}")
    print(f"  with an example:            {with_example} / {len(diagnosed)}")
    print(f"  every example at most {SMALL}x{SMALL}: {small_files} / {len(diagnosed)}"
          + (f" ({100 * small_files / len(diagnosed):.0f}%)" if diagnosed else ""))
    print(f"examples that reproduce:      {reproduced} / {total}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a folder of corpus files (any depth)")
    parser.add_argument("--verbose", "-v", action="store_true", help="a line per file, and the text of every "
                        "diagnosis that is not correct")
    parser.add_argument("--examples", action="store_true", help="the smallest examples' figures too (each rerun)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per exercise (default 60)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus} is not a folder")
    entries = [entry for entry in map(read_entry, sorted(args.corpus.rglob("*.py"))) if entry is not None]
    if not entries:
        parser.error(f"no corpus files (with a '# lumen-unseen:' header or a 'Diagnosis:' line) under {args.corpus}")
    graded = grade_all(entries, args.timeout, examples=args.examples)
    counts = {}
    for entry in entries:
        text, passed, diagnoses, _ = graded[entry.path]
        outcome = verdict(entry, text, [d["id"] for d in diagnoses])
        counts[outcome] = counts.get(outcome, 0) + 1
        if args.verbose:
            where = entry.path.relative_to(args.corpus)
            note = " (passes every test)" if passed and entry.kind == "wrong" else (
                " (fails some test)" if not passed and entry.kind == "honest" else "")
            print(f"{outcome:10s} {where}{note}: {entry.mistake}")
            if text:
                print("           " + text.replace("\n", "\n           "))
    wrong = sum(entry.kind == "wrong" for entry in entries)
    honest = len(entries) - wrong
    print(f"specific and correct: {counts.get('correct', 0)} / {wrong} wrong files"
          + (f" ({100 * counts.get('correct', 0) / wrong:.0f}%)" if wrong else ""))
    print(f"misleading:           {counts.get('misleading', 0)}")
    print(f"diagnoses on correct files: {counts.get('diagnosed', 0)} / {honest} honest files")
    if args.examples:
        report_examples(entries, graded, args.verbose)
        honest_examples = sum("example" in d for entry in entries if entry.kind == "honest"
                              for d in graded[entry.path][2])
        print(f"examples on honest files:     {honest_examples}")


if __name__ == "__main__":
    main()
