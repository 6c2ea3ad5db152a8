"""Batch throughput: students graded per minute by `lumen-grade batch` with --jobs 1 and --jobs 2.

Generates a class of submissions (default 40: the instructor solutions, with every fourth student's
exercise 3 wrong, every fourth with exercise 5 left as the stub, every fourth in a nested folder),
grades the whole class with each --jobs setting in turn (--force, fresh gradebooks), and prints the
students per minute of each and their ratio. With --rounds N the settings alternate N times and the
medians are given. Performance tiers are left out (--no-perf) unless --perf: they time code, and
their cost is the perf phase's, not the batch's. Run by hand:

    python benchmarks/batch_throughput.py                # 40 students, --jobs 1 then --jobs 2
    python benchmarks/batch_throughput.py --students 8   # a quick look
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_class(folder, count):
    """`count` student folders built from solutions/ and exercises/."""
    solutions, stubs = ROOT / "solutions", ROOT / "exercises"
    for number in range(count):
        student = folder / f"student{number:03d}"
        target = student / "attention" / "hw" if number % 4 == 3 else student
        target.mkdir(parents=True)
        for path in solutions.glob("exercise*.py"):
            shutil.copyfile(path, target / path.name)
        if number % 4 == 1:
            scaling = target / "exercise3_scaling.py"
            scaling.write_text(scaling.read_text().replace("math.sqrt(d_k)", "d_k"))
        if number % 4 == 2:
            shutil.copyfile(stubs / "exercise5_softmax.py", target / "exercise5_softmax.py")


def grade_class(folder, out, jobs, perf):
    """Seconds `lumen-grade batch` takes to grade the whole class from scratch."""
    command = [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "--jobs", str(jobs),
               "--device", "cpu", "--force", *([] if perf else ["--no-perf"])]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--perf", action="store_true", help="grade with the performance tiers")
    args = parser.parse_args()
    settings = (1, 2)
    with tempfile.TemporaryDirectory(prefix="lumen-bench-") as scratch:
        folder = Path(scratch) / "class"
        make_class(folder, args.students)
        seconds = {jobs: [] for jobs in settings}
        for round_number in range(args.rounds):
            for jobs in settings if round_number % 2 == 0 else reversed(settings):
                elapsed = grade_class(folder, Path(scratch) / f"grades-{jobs}.csv", jobs, args.perf)
                seconds[jobs].append(elapsed)
                print(f"round {round_number + 1}: --jobs {jobs}: {elapsed:.1f} s", flush=True)
    rate = {jobs: 60 * args.students / statistics.median(times) for jobs, times in seconds.items()}
    print(f"\n{args.students} students, {os.cpu_count()} CPUs, median of {args.rounds} round(s), "
          f"performance tiers {'on' if args.perf else 'off'}")
    for jobs in settings:
        print(f"  --jobs {jobs}: {rate[jobs]:.1f} students/min ({statistics.median(seconds[jobs]):.1f} s)")
    print(f"  --jobs 2 / --jobs 1: {rate[2] / rate[1]:.2f}x")


if __name__ == "__main__":
    main()
