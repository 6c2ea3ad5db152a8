"""How long `lumen-grade` takes, against the floor of any torch + pytest tool on this machine.

Runs, interleaved in a random order each round, `python -c "import torch, pytest"` (the floor),
`lumen-grade exercise3` and `lumen-grade all` on the instructor solutions, each with `--no-perf`
and with the performance tiers, and prints each command's median wall time and its ratio to the
floor's median. Goals (--no-perf): one exercise <= 1.5x the floor, all of them <= 3x. With
--confinement-cost, the --no-perf commands also run without the kernel's layers of confinement
(LUMEN_NO_KERNEL_CONTAINMENT=1: no mount namespace, uid drop or Landlock), in the same rounds, so
that what confinement costs is measured side by side. With --against TREE, the grading commands
also run from another tree of the kit (another version, with its own TREE/.venv), in the same
rounds, so that a change's cost is measured side by side: the last column is this tree's median
over that tree's.

    python benchmarks/grading_latency.py --rounds 7
    python benchmarks/grading_latency.py --rounds 7 --no-perf-only --confinement-cost
    python benchmarks/grading_latency.py --rounds 7 --against ../base
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
AGAINST = " (other tree)"  # the same command run from the --against tree


def base_name(name):
    return name.removesuffix(AGAINST).removesuffix(UNCONFINED)


def wall_time(name, against=None):
    command, cwd = COMMANDS[base_name(name)][0], ROOT
    if name.endswith(AGAINST):  # that tree's interpreter, solutions and working folder
        python = str(against / ".venv" / "bin" / "python")
        command = [python if part == sys.executable else part.replace(str(ROOT), str(against)) for part in command]
        cwd = against
    env = {**os.environ, **({"LUMEN_NO_KERNEL_CONTAINMENT": "1"} if UNCONFINED in name else {})}
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - started


@click.command()
@click.option("--rounds", type=click.IntRange(min=1), default=7, show_default=True,
              help="Runs of every command, interleaved.")
@click.option("--no-perf-only", is_flag=True, help="Skip the runs with the performance tiers.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the order of the runs.")
@click.option("--confinement-cost", is_flag=True,
              help="Also run the --no-perf commands without the kernel's layers of confinement.")
@click.option("--against", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Another tree of the kit (with its own .venv): its grading commands run in the same rounds.")
def main(rounds, no_perf_only, seed, confinement_cost, against):
    """Median wall time of each grading command, as a ratio to the torch + pytest import floor."""
    names = [name for name in COMMANDS if not no_perf_only or "--no-perf" in name or name.startswith("import")]
    names += [name + UNCONFINED for name in names if confinement_cost and "--no-perf" in name]
    names += [name + AGAINST for name in names if against is not None and not name.startswith("import")]
    against = against.resolve() if against is not None else None
    times = {name: [] for name in names}
    order = random.Random(seed)
    for round_ in range(rounds):
        order.shuffle(names)
        for name in names:
            times[name].append(wall_time(name, against))
        click.echo(f"round {round_ + 1}/{rounds} done", err=True)
    floor = statistics.median(times["import torch, pytest"])
    click.echo(f"{'command':<54} {'median s':>9} {'x floor':>8}  goal")
    for name in sorted(times, key=lambda name: (list(COMMANDS).index(base_name(name)), name)):
        median, goal = statistics.median(times[name]), COMMANDS[base_name(name)][1]
        verdict = "" if goal is None else f"<= {goal:g}x: {'met' if median / floor <= goal else 'NOT met'}"
        if name + AGAINST in times:
            verdict += f"  (this tree / other: {median / statistics.median(times[name + AGAINST]):.2f})"
        click.echo(f"{name:<54} {median:>9.2f} {median / floor:>8.2f}  {verdict}")


if __name__ == "__main__":
    main()
