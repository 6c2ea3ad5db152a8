"""The performance tiers' stability and cost, as `lumen-grade` measures them (on the CPU).

Stability: every timed exercise's solution and every file of tests/slow_submissions/, graded RUNS
times each by `lumen-grade all` as a student's folder is (each slow file in a folder of solutions,
so that it is timed beside the suites of the exercises after it; the folders in turns, so that the
machine's load falls on all of them), on the machine as it is and, with --hog, beside a CPU hog on
every core. A slow file whose tests fail (exercise 10's whole matrix) is told apart by them. Done when every solution is on par in every run
(or "not timed: the machine was too busy", never slower and never a note about its timings, such
as "a few [calls] took the rest's time") and
every slow file lands a tier lower or more in every run (a file about memory: its memory verdict),
and the KV cache's growth verdict is GROWTH's for each exercise 8 file.

Cost (--cost): `lumen-grade all` with its tiers, without them, and `lumen-grade exercise3` with its
tier, against the floor (`python -c "import torch, pytest"`), measured in turns, ROUNDS of each, as
medians of wall time. Goals: `all` with tiers <= 3x the floor, `exercise3` <= 1.5x.

    python benchmarks/tiers.py --runs 10             # stability on the machine as it is
    python benchmarks/tiers.py --runs 10 --hog       # ... and with every core busy
    python benchmarks/tiers.py --cost --rounds 5     # the cost against the floor
    python benchmarks/tiers.py --exercise 10 --runs 3   # one exercise's files only
"""

import collections
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
GOALS = {"all": 3.0, "exercise3": 1.5}  # wall time over the floor's


def submissions():
    """(exercise, label, path) of every timed exercise's solution, then every slow submission (an
    exercise whose declaration has no performance cases is untimed: it has no tier)."""
    from grader import catalog

    for exercise in (exercise for exercise in catalog.EXERCISES if exercise.timed):
        yield exercise, "solution", ROOT / "solutions" / exercise.file_name
    for path in sorted((ROOT / "tests" / "slow_submissions").glob("exercise*/*.py")):
        yield catalog.find(path.parent.name), path.stem, path


def classes(files, folder):
    """Submission folders that together hold every file of `files` once, each folder at most one file
    per exercise and the solutions for the rest, so that each is graded by `lumen-grade all` as a
    student's is: every file timed beside the suites of the exercises after it. {folder: {exercise
    id: label}}."""
    from grader import catalog

    folders = []
    for exercise, label, path in files:
        home = next((taken for taken in folders if exercise.id not in taken), None)
        if home is None:
            folders.append(home := {})
        home[exercise.id] = (label, path)
    made = {}
    for index, taken in enumerate(folders):
        here = Path(folder) / f"class{index}"
        here.mkdir()
        for exercise in catalog.EXERCISES:
            label, path = taken.get(exercise.id, (None, ROOT / "solutions" / exercise.file_name))
            (here / exercise.file_name).write_bytes(path.read_bytes())
        made[here] = {exercise_id: label for exercise_id, (label, _) in taken.items()}
    return made


@contextlib.contextmanager
def hog(on):
    """A process spinning on every core while the block runs (when `on`)."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() if on else 0)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


GROWTH = {"solution": {"linear"}, "concat_cache": {"linear", "recomputes"},  # the KV cache's verdicts
          "recompute_past_kv": {"recomputes"}, "rerun_sequence": {"super-linear"}}  # a copy costs per token
FLAGGED = {"reallocates", "oversized", "quadratic", "super-linear", "recomputes"}  # verdicts that tell a file apart


def told_apart(tier):
    """Whether the KV cache's or exercise 10's memory verdict names what is wrong (the slow corpus's
    files about memory may be as fast as the solution)."""
    return any((tier.get(key) or {}).get("verdict") in FLAGGED for key in ("memory", "complexity"))


def stability(runs, only, hogged):
    """Each file's tiers over `runs` runs of `lumen-grade all`, as a student's run times them."""
    from grader import catalog

    wanted = {catalog.find(name).id for name in only}
    files = [entry for entry in submissions() if not wanted or entry[0].id in wanted]
    seen = collections.defaultdict(list)  # (exercise id, label) -> [(tier, seconds of the whole run)]
    with tempfile.TemporaryDirectory() as scratch, hog(hogged):
        folders = classes(files, scratch)
        for run in range(runs):
            for folder, labels in folders.items():
                report = Path(scratch) / "report.json"
                started = time.perf_counter()
                subprocess.run([sys.executable, "-m", "grader", "all", "--submission", str(folder), "--device", "cpu",
                                "--format", "json", "--output", str(report)], cwd=ROOT, stdout=subprocess.DEVNULL,
                               check=False)
                seconds = time.perf_counter() - started
                graded = {exercise["id"]: exercise for exercise in json.loads(report.read_text())["exercises"]}
                for exercise_id, label in labels.items():
                    result = graded[exercise_id]
                    tier = result["tier"] or {"id": "failed", "ratio": None, "message": "its tests did not all pass"}
                    seen[exercise_id, label].append((tier, seconds))
    from grader.perf.judge import TIERS

    rank = {tier_id: index for index, (tier_id, *_) in enumerate(TIERS)}
    click.echo(f"{runs} runs each, {'with a CPU hog on each of' if hogged else 'beside whatever else runs on'} "
               f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
    failures = 0
    for (exercise_id, label), results in seen.items():
        tiers = collections.Counter(tier["id"] for tier, _ in results)
        busy = sum(tier["id"] == "not-timed" and "too busy" in tier["message"] for tier, _ in results)
        if label == "solution":  # on par, or too busy to say; never slower, never another "not timed"
            good = all((tier["id"] == "on-par" and not tier.get("bursts")) or "too busy" in tier["message"]
                       for tier, _ in results)
        else:  # a tier lower than the solution's, or more, or (a file about memory) its memory verdict
            good = all(rank.get(tier["id"], 0) >= rank["3x"] or told_apart(tier) or tier["id"] == "failed"
                       for tier, _ in results)
        if exercise_id == "exercise8":  # and its growth as each file's code grows
            good = good and all(tier.get("complexity", {}).get("verdict") in GROWTH[label]
                                for tier, _ in results if tier["id"] not in ("not-timed", "failed"))
        failures += not good
        ratios = [tier["ratio"] for tier, _ in results if tier["ratio"] is not None]
        median_ratio = f"{statistics.median(ratios):6.2f}×" if ratios else "      -"
        click.echo(f"{'ok ' if good else 'BAD'} {exercise_id:<10} {label:<24} "
                   f"{', '.join(f'{tier} {count}/{runs}' for tier, count in tiers.most_common()):<34} "
                   f"median {median_ratio}  run {statistics.median(s for _, s in results):5.2f} s"
                   + (f"  ({busy} too busy)" if busy else ""))
        for tier, _ in results:
            if not good and tier["id"] == "not-timed":
                click.echo(f"      {tier['message']}")
    click.echo(f"{len(seen) - failures} of {len(seen)} files as they should be in every run")


def cost(rounds, hogged):
    """Medians of wall time, measured in turns."""
    grade = [sys.executable, "-m", "grader"]
    commands = {
        "floor": [sys.executable, "-c", "import torch, pytest"],
        "all": [*grade, "all", "--submission", str(ROOT / "solutions"), "--device", "cpu"],
        "all --no-perf": [*grade, "all", "--submission", str(ROOT / "solutions"), "--device", "cpu", "--no-perf"],
        "exercise3": [*grade, "exercise3", "--submission", str(ROOT / "solutions"), "--device", "cpu"],
    }
    times = collections.defaultdict(list)
    # the kit's bytecode compiled first, as pip compiles an installed package's (and torch's is):
    # where PYTHONDONTWRITEBYTECODE is set, an editable checkout would compile every module each run
    subprocess.run([sys.executable, "-m", "compileall", "-q", "grader", "lumen_ref"], cwd=ROOT, check=True)
    with hog(hogged):
        for _ in range(rounds):
            for name, command in commands.items():
                started = time.perf_counter()
                done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                times[name].append(time.perf_counter() - started)
                if done.returncode not in (0, 1):
                    raise click.ClickException(f"{name} failed: {done.stderr[-500:]}")
    floor = statistics.median(times["floor"])
    click.echo(f"median of {rounds} rounds, in turns, {'with a CPU hog on every core' if hogged else 'as the machine is'} "
               f"({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}):")
    for name, seconds in times.items():
        ratio = statistics.median(seconds) / floor
        goal = GOALS.get(name)
        verdict = "" if goal is None else f"  goal <= {goal:g}×: {'met' if ratio <= goal else 'NOT met'}"
        click.echo(f"  {name:<14} {statistics.median(seconds):6.2f} s  {ratio:5.2f}× the floor{verdict}")


@click.command()
@click.option("--runs", type=click.IntRange(min=1), default=1, show_default=True, help="Runs per file.")
@click.option("--exercise", "only", multiple=True, help="Only this exercise (exercise10, 10, ...); repeatable.")
@click.option("--hog", "hogged", is_flag=True, help="Keep every core busy with a spinning process meanwhile.")
@click.option("--cost", "costs", is_flag=True, help="Measure what `all` and `exercise3` cost against the floor instead.")
@click.option("--rounds", type=click.IntRange(min=1), default=5, show_default=True, help="Rounds of --cost.")
def main(runs, only, hogged, costs, rounds):
    """One line per file: its tiers over the runs, the median ratio and seconds; or with --cost,
    what a run costs against `import torch, pytest`."""
    if costs:
        cost(rounds, hogged)
    else:
        stability(runs, only, hogged)


if __name__ == "__main__":
    main()
