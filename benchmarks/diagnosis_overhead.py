"""Diagnosis overhead: what naming a mistake, and shrinking it to its smallest example, adds to grading.

Two measurements, each a median over --rounds, the settings alternating within every round (or,
with --all, a third one only):

1. the failing path, side by side with another tree (--against, e.g. the tree before the smallest
   examples: `git archive <commit> | tar -x -C ../base`): `lumen-grade EXERCISE --no-perf --device
   cpu --format json` (a process per run, as a student runs it) on one wrong file of that exercise,
   run by each tree's own code (`python -m grader` from its root), and this tree's time over the
   other's. Goal of the hint ladder's issue: at most 1.3;
2. in one process (one sandbox launcher, so only grading is timed), that file graded with the
   smallest examples and with them switched off (grader.diagnosis.examples.shrink replaced by a
   function that finds none): the cost of shrinking itself, and how many examples were found;
3. --all: `lumen-grade all --no-perf` on a submission with one mistake in every exercise (MISTAKES)
   against the same command on `solutions/`, in this tree. Goal of the verdicts' issue: at most 1.5.

Run by hand:

    python benchmarks/diagnosis_overhead.py --against ../base                      # exercise 6, 5 rounds
    python benchmarks/diagnosis_overhead.py --against ../base --exercise 3 --rounds 11
    python benchmarks/diagnosis_overhead.py --all --rounds 5
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
sys.path.insert(0, str(ROOT))

MISTAKES = {  # exercise -> a wrong submission of tests/submissions/
    "1": "exercise1/wrong_qvk_order.py",
    "2": "exercise2/wrong_keys_times_queries.py",
    "3": "exercise3/wrong_divide_by_dk.py",
    "4": "exercise4/wrong_inverted_causal.py",
    "5": "exercise5/wrong_naive_exp.py",
    "6": "exercise6/wrong_split_no_transpose.py",
    "7": "exercise7/wrong_repeat_not_interleave.py",
    "8": "exercise8/wrong_mask_top_left.py",
    "9": "exercise9/wrong_previous_main_diagonal.py",
    "10": "exercise10/wrong_sum_not_rescaled.py",
}


def cli_seconds(tree, exercise, submission):
    """Seconds one `lumen-grade EXERCISE --no-perf` (EXERCISE: a number, or "all") of `tree`'s code takes on
    `submission`, start-up included."""
    command = [sys.executable, "-m", "grader", exercise if exercise == "all" else f"exercise{exercise}",
               "--submission", str(submission), "--no-perf", "--device", "cpu", "--format", "json"]
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    subprocess.run(command, cwd=tree, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - started


def in_process(exercise, folder, rounds):
    """Median seconds grading `folder` takes with the smallest examples and without them, in this process,
    and the number of examples found."""
    from grader import catalog
    from grader.diagnosis import examples
    from grader.grading import runner
    from grader.grading.settings import Settings
    from grader.sandbox.judge import Launcher

    launcher = Launcher()
    launcher.start()  # before anything of the reference exists in this process
    real = examples.shrink
    times, found = {"with": [], "without": []}, 0
    try:
        options = Settings(submission=folder, device="cpu", perf=False)
        for _ in range(rounds):
            for setting in times:
                examples.shrink = real if setting == "with" else (lambda *args, **kwargs: None)
                started = time.perf_counter()
                verdict = runner.grade([catalog.find(exercise)], options, launcher=launcher)
                times[setting].append(time.perf_counter() - started)
                if setting == "with":
                    found = sum("example" in d for e in verdict.exercises for d in e.diagnoses)
    finally:
        examples.shrink = real
        launcher.close()
    return {setting: statistics.median(values) for setting, values in times.items()}, found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="the root of the tree to compare with")
    parser.add_argument("--all", action="store_true",
                        help="time `all` with a mistake in every exercise against `all` on solutions/ instead")
    parser.add_argument("--exercise", default="6", choices=sorted(MISTAKES, key=int))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.all:
        return failing_all(args.rounds)
    if args.against is None:
        parser.error("--against is needed (or --all)")
    if not (args.against / "grader" / "__main__.py").is_file():
        parser.error(f"{args.against} is not the root of a Lumen kit tree (no grader/__main__.py)")
    from grader import catalog

    exercise = catalog.find(args.exercise)
    with tempfile.TemporaryDirectory(prefix="lumen-bench-") as scratch:
        folder = Path(scratch)
        shutil.copyfile(ROOT / "tests" / "submissions" / MISTAKES[args.exercise], folder / exercise.file_name)
        trees = {"this tree": ROOT, "against": args.against.resolve()}
        runs = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                runs[name].append(cli_seconds(tree, args.exercise, folder))
        cli = {name: statistics.median(values) for name, values in runs.items()}
        grading, found = in_process(args.exercise, folder, args.rounds)
    print(f"lumen-grade {exercise.id} --no-perf on {MISTAKES[args.exercise]}, median of {args.rounds} runs each "
          f"(load average {os.getloadavg()[0]:.1f}):")
    print(f"  {args.against}: {cli['against']:6.2f} s")
    print(f"  this tree:      {cli['this tree']:6.2f} s   ratio {cli['this tree'] / cli['against']:.2f}  (goal <= 1.3)")
    print(f"graded in one process ({found} smallest examples found):")
    print(f"  without the examples   {grading['without']:6.3f} s")
    print(f"  with the examples      {grading['with']:6.3f} s   ratio {grading['with'] / grading['without']:.2f}")


def failing_all(rounds):
    """`all --no-perf` with a mistake in every exercise against `all --no-perf` on solutions/, alternating."""
    from grader import catalog

    with tempfile.TemporaryDirectory(prefix="lumen-bench-") as scratch:
        wrong = Path(scratch)
        for number, mistake in MISTAKES.items():
            shutil.copyfile(ROOT / "tests" / "submissions" / mistake, wrong / catalog.find(number).file_name)
        folders = {"solutions/": ROOT / "solutions", "a mistake in every exercise": wrong}
        runs = {name: [] for name in folders}
        for _ in range(rounds):
            for name, folder in folders.items():
                runs[name].append(cli_seconds(ROOT, "all", folder))
    median = {name: statistics.median(values) for name, values in runs.items()}
    print(f"lumen-grade all --no-perf, median of {rounds} runs each (load average {os.getloadavg()[0]:.1f}):")
    for name, seconds in median.items():
        print(f"  {name:28s} {seconds:6.2f} s")
    ratio = median["a mistake in every exercise"] / median["solutions/"]
    print(f"  ratio {ratio:.2f}  (goal <= 1.5)")


if __name__ == "__main__":
    main()
