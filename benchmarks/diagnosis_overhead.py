"""Diagnosis overhead: what naming the students' misconceptions adds to a grading run.

Two measurements, each a median over --rounds, the settings alternating within every round:

1. `lumen-grade all --no-perf --device cpu --format json` (a process per run, as a student runs it) on
   solutions/ and on two folders with a mistake in every exercise: one wrong file per exercise from
   tests/submissions/ (the catalogue's mistakes) and the first wrong file per exercise of
   tests/unseen/ (mistakes written without the catalogue, most explained by the structural
   analysers, which replay more); each folder's time against the solutions';
2. in one process (one sandbox launcher, so only grading is timed), the folder of mistakes graded
   with the diagnosis and with it switched off (grader.diagnosis.matcher.diagnose replaced by a function that
   finds nothing), and their ratio: the cost of diagnosing itself.

Run by hand:

    python benchmarks/diagnosis_overhead.py              # 5 rounds
    python benchmarks/diagnosis_overhead.py --rounds 11
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from grader.grading.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
MISTAKES = {  # exercise -> a wrong submission from the corpus
    "exercise1_projection.py": "exercise1/wrong_qvk_order.py",
    "exercise2_scoring.py": "exercise2/wrong_keys_times_queries.py",
    "exercise3_scaling.py": "exercise3/wrong_divide_by_dk.py",
    "exercise4_masking.py": "exercise4/wrong_inverted_causal.py",
    "exercise5_softmax.py": "exercise5/wrong_naive_exp.py",
    "exercise6_multihead.py": "exercise6/wrong_split_no_transpose.py",
    "exercise7_gqa.py": "exercise7/wrong_repeat_not_interleave.py",
    "exercise8_kv_cache.py": "exercise8/wrong_mask_top_left.py",
}


def make_mistakes(folder):
    folder.mkdir()
    for name, source in MISTAKES.items():
        shutil.copyfile(ROOT / "tests" / "submissions" / source, folder / name)


def make_unseen_mistakes(folder):
    """The first wrong file of each exercise in tests/unseen/, under the exercise's file name."""
    folder.mkdir()
    for name in MISTAKES:
        exercise = name.split("_")[0]
        first = sorted((ROOT / "tests" / "unseen" / exercise).glob("wrong_*.py"))[0]
        shutil.copyfile(first, folder / name)


def cli_seconds(submission):
    """Seconds one `lumen-grade all --no-perf` takes on `submission`, start-up included."""
    command = [sys.executable, "-m", "grader", "all", "--submission", str(submission), "--no-perf",
               "--device", "cpu", "--format", "json"]
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def in_process(folder, rounds):
    """Median seconds grading `folder` takes with the diagnosis and without it, in this process."""
    from grader import catalog
    from grader.diagnosis import matcher as diagnose
    from grader.grading import runner
    from grader.sandbox.judge import Launcher

    launcher = Launcher()
    launcher.start()  # before anything of the reference exists in this process
    real = diagnose.diagnose
    times = {"with": [], "without": []}
    found = []
    try:
        options = Settings(submission=folder, device="cpu", perf=False)
        for _ in range(rounds):
            for setting in times:
                diagnose.diagnose = real if setting == "with" else (lambda *args, **kwargs: None)
                started = time.perf_counter()
                verdict = runner.grade(list(catalog.EXERCISES), options, launcher=launcher)
                times[setting].append(time.perf_counter() - started)
                if setting == "with":
                    found = [d["id"] for e in verdict.exercises for d in e.diagnoses]
    finally:
        diagnose.diagnose = real
        launcher.close()
    return {setting: statistics.median(values) for setting, values in times.items()}, found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lumen-bench-") as scratch:
        mistakes, unseen = Path(scratch) / "mistakes", Path(scratch) / "unseen"
        make_mistakes(mistakes)
        make_unseen_mistakes(unseen)
        folders = {"solutions": ROOT / "solutions", "mistakes": mistakes, "unseen": unseen}
        runs = {name: [] for name in folders}
        for _ in range(args.rounds):
            for name, folder in folders.items():
                runs[name].append(cli_seconds(folder))
        cli = {name: statistics.median(values) for name, values in runs.items()}
        grading, found = in_process(mistakes, args.rounds)
    print(f"lumen-grade all --no-perf, median of {args.rounds} runs each:")
    print(f"  solutions/                                  {cli['solutions']:6.2f} s")
    print(f"  a mistake in every exercise (submissions/)  {cli['mistakes']:6.2f} s   "
          f"ratio {cli['mistakes'] / cli['solutions']:.2f}")
    print(f"  a mistake in every exercise (unseen/)       {cli['unseen']:6.2f} s   "
          f"ratio {cli['unseen'] / cli['solutions']:.2f}")
    print(f"the mistakes graded in one process ({len(found)} diagnoses: {', '.join(found)}):")
    print(f"  without the diagnosis        {grading['without']:6.2f} s")
    print(f"  with the diagnosis           {grading['with']:6.2f} s   ratio {grading['with'] / grading['without']:.2f}")


if __name__ == "__main__":
    main()
