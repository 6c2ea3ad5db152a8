"""How long `lumen-grade` takes, against the floor of any torch + pytest tool on this machine.

Runs, interleaved in a random order each round, `python -c "import torch, pytest"` (the floor),
`lumen-grade exercise3` and `lumen-grade all` on the instructor solutions, each with `--no-perf`
and with the performance tiers, and prints each command's median wall time and its ratio to the
floor's median. Goals (--no-perf): one exercise <= 1.5x the floor, all eight <= 3x. With
--confinement-cost, the --no-perf commands also run without the kernel's layers of confinement
(LUMEN_NO_KERNEL_CONTAINMENT=1: no mount namespace, uid drop or Landlock), in the same rounds, so
that what confinement costs is measured side by side.

    python benchmarks/grading_latency.py --rounds 7
    python benchmarks/grading_latency.py --rounds 7 --no-perf-only --confinement-cost
"""

import os

import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
GRADE = [sys.executable, "-m", "grader"]
SOLUTIONS = ["--submission", str(ROOT / "solutions"), "--device", "cpu"]
COMMANDS = {
    "import torch, pytest": ([sys.executable, "-c", "import torch, pytest"], None),
    "exercise3 --no-perf": ([*GRADE, "exercise3", *SOLUTIONS, "--no-perf"], 1.5),
    "all --no-perf": ([*GRADE, "all", *SOLUTIONS, "--no-perf"], 3.0),
    "exercise3": ([*GRADE, "exercise3", *SOLUTIONS], None),
    "all": ([*GRADE, "all", *SOLUTIONS], None),
}
UNCONFINED = " (no kernel layers)"  # the same command with LUMEN_NO_KERNEL_CONTAINMENT=1


def wall_time(name):
    command = COMMANDS[name.removesuffix(UNCONFINED)][0]
    env = {**os.environ, **({"LUMEN_NO_KERNEL_CONTAINMENT": "1"} if name.endswith(UNCONFINED) else {})}
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - started


@click.command()
@click.option("--rounds", type=click.IntRange(min=1), default=7, show_default=True,
              help="Runs of every command, interleaved.")
@click.option("--no-perf-only", is_flag=True, help="Skip the runs with the performance tiers.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the order of the runs.")
@click.option("--confinement-cost", is_flag=True,
              help="Also run the --no-perf commands without the kernel's layers of confinement.")
def main(rounds, no_perf_only, seed, confinement_cost):
    """Median wall time of each grading command, as a ratio to the torch + pytest import floor."""
    names = [name for name in COMMANDS if not no_perf_only or "--no-perf" in name or name.startswith("import")]
    names += [name + UNCONFINED for name in names if confinement_cost and "--no-perf" in name]
    times = {name: [] for name in names}
    order = random.Random(seed)
    for round_ in range(rounds):
        order.shuffle(names)
        for name in names:
            times[name].append(wall_time(name))
        click.echo(f"round {round_ + 1}/{rounds} done", err=True)
    floor = statistics.median(times["import torch, pytest"])
    click.echo(f"{'command':<40} {'median s':>9} {'x floor':>8}  goal")
    for name in sorted(times, key=lambda name: list(COMMANDS).index(name.removesuffix(UNCONFINED))):
        median, goal = statistics.median(times[name]), COMMANDS[name.removesuffix(UNCONFINED)][1]
        verdict = "" if goal is None else f"<= {goal:g}x: {'met' if median / floor <= goal else 'NOT met'}"
        click.echo(f"{name:<40} {median:>9.2f} {median / floor:>8.2f}  {verdict}")


if __name__ == "__main__":
    main()
