"""How long `lumen-grade class-report` takes on a class of 500 students' records (goal: <= 5 s on
2 cores).

    python benchmarks/class_report.py                    # grades the corpus variants first (~1 min)
    python benchmarks/class_report.py --variants DIR     # reuse the variants' records of an earlier run

The records are tests/course/synthetic_class.py's: each distinct corpus file graded once by
`batch`, students composed from them, written as a reports folder (500 STUDENT.json files). Two
figures, medians of --repeat runs measured side by side: the whole command in a fresh process
(reading and validating every record through the report schema's loader, the analysis, the three
files; torch's import included), and the same work in-process (imports done).
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "course"))

import synthetic_class  # noqa: E402
from grader.course import class_report  # noqa: E402

GOAL = 5.0  # seconds


def variants(folder):
    """{variant: record}: from `folder` (a reports folder of an earlier run) or graded now."""
    if folder:
        return {path.stem: json.loads(path.read_text()) for path in Path(folder).glob("*.json")}
    work = Path(tempfile.mkdtemp(prefix="lumen-variants-"))
    graded = synthetic_class.grade_variants(work)
    print(f"graded the variants into {work / 'variants'} (reuse: --variants {work / 'variants'})")
    return graded


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--variants", type=Path, help="a folder of the variants' records (STUDENT.json)")
    args = parser.parse_args()
    records, _ = synthetic_class.make_class(variants(args.variants), args.students)
    with tempfile.TemporaryDirectory(prefix="lumen-class-report-") as work:
        grades = Path(work, "grades")
        grades.mkdir()
        for name, record in records.items():
            (grades / f"{name}.json").write_text(json.dumps(record, indent=2))
        size = sum(path.stat().st_size for path in grades.iterdir())
        command = [sys.executable, "-m", "grader", "class-report", str(grades), "--out", str(Path(work, "out"))]
        whole, inside = [], []
        for _ in range(args.repeat):  # interleaved, so that both see the same load
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            whole.append(time.perf_counter() - started)
            started = time.perf_counter()
            read, unreadable = class_report.read_grades(grades)
            class_report.write(class_report.build(read, unreadable=unreadable), Path(work, "again"))
            inside.append(time.perf_counter() - started)
        shutil.rmtree(Path(work, "out"))
    print(f"{args.students} students' records ({size / 1e6:.1f} MB), median of {args.repeat}:")
    print(f"  lumen-grade class-report, a fresh process: {statistics.median(whole):.2f} s "
          f"(min {min(whole):.2f}, max {max(whole):.2f}); goal <= {GOAL:g} s: "
          f"{'met' if statistics.median(whole) <= GOAL else 'NOT met'}")
    print(f"  read + build + write in-process:          {statistics.median(inside):.2f} s "
          f"(min {min(inside):.2f}, max {max(inside):.2f})")


if __name__ == "__main__":
    main()
