"""The performance tiers of the solutions and of the deliberately slow submissions, with the time
the performance phase takes for each, as `lumen-grade` measures them (on the CPU).

    python benchmarks/tiers.py             # solutions/ and tests/slow_submissions/
    python benchmarks/tiers.py --runs 3    # each file several times: is its tier stable?
    python benchmarks/tiers.py --exercise 10 --runs 3   # one exercise's files only
"""

import tempfile
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent


def submissions():
    """(exercise, label, path) of every timed exercise's solution, then every slow submission (an
    exercise whose declaration has no performance cases is untimed: it has no tier)."""
    from grader import catalog

    for exercise in (exercise for exercise in catalog.EXERCISES if exercise.timed):
        yield exercise, "solution", ROOT / "solutions" / exercise.file_name
    for path in sorted((ROOT / "tests" / "slow_submissions").glob("exercise*/*.py")):
        yield catalog.find(path.parent.name), path.stem, path


@click.command()
@click.option("--runs", type=click.IntRange(min=1), default=1, show_default=True, help="Runs per file.")
@click.option("--exercise", "only", multiple=True, help="Only this exercise (exercise10, 10, ...); repeatable.")
def main(runs, only):
    """One line per file and run: tier, ratio, spread, rounds, the KV cache's and exercise 10's
    memory verdicts, seconds taken."""
    from grader.sandbox.judge import Launcher

    launcher = Launcher()
    launcher.start()  # before the reference is imported, as lumen-grade does
    from grader.perf import judge as perf

    try:
        with tempfile.TemporaryDirectory() as log_dir:
            from grader import catalog

            wanted = {catalog.find(name).id for name in only}
            for exercise, label, path in submissions():
                if wanted and exercise.id not in wanted:
                    continue
                for _ in range(runs):
                    started = time.perf_counter()
                    tier = perf.measure(exercise, str(path), launcher, "cpu", log_dir)
                    seconds = time.perf_counter() - started
                    ratio = f"{tier['ratio']:8.2f}" if tier["ratio"] is not None else "       -"
                    verdicts = ""
                    if "complexity" in tier:
                        verdicts = f"  KV cache: {tier['complexity']['verdict']}, memory: {tier['memory']['verdict']}"
                    elif "memory" in tier:  # the largest tensor's growth with L (exercise 10)
                        memory = tier["memory"]
                        verdicts = (f"  memory: {memory['verdict']}, L^{memory['exponent']:.2f}, "
                                    f"{memory['bytes'][-1] / 2 ** 20:.2f} MiB at L = {memory['lengths'][-1]}")
                    spread = f"±{100 * tier.get('spread', 0):4.1f}%"
                    click.echo(f"{exercise.id}  {label:<24} {tier['id']:<9} {ratio} {spread} "
                               f"{tier.get('rounds', 0):3d} rounds {seconds:5.1f} s{verdicts}")
    finally:
        launcher.close()


if __name__ == "__main__":
    main()
