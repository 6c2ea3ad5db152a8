"""Diagnosis coverage: how many wrong submissions get a specific, correct explanation, on any corpus.

    python benchmarks/diagnosis_coverage.py tests/unseen            # the three figures
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


def grade_all(entries, time_limit):
    """{path: (diagnosis text, passed, diagnosis ids)} grading each file as its exercise, one file per exercise per run."""
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
                results[entry.path] = (text, result.passed, [d["id"] for d in result.diagnoses])
    finally:
        launcher.close()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a folder of corpus files (any depth)")
    parser.add_argument("--verbose", "-v", action="store_true", help="a line per file, and the text of every "
                        "diagnosis that is not correct")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per exercise (default 60)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus} is not a folder")
    entries = [entry for entry in map(read_entry, sorted(args.corpus.rglob("*.py"))) if entry is not None]
    if not entries:
        parser.error(f"no corpus files (with a '# lumen-unseen:' header or a 'Diagnosis:' line) under {args.corpus}")
    graded = grade_all(entries, args.timeout)
    counts = {}
    for entry in entries:
        text, passed, ids = graded[entry.path]
        outcome = verdict(entry, text, ids)
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


if __name__ == "__main__":
    main()
