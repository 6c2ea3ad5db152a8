"""What the exercise's rules cost a child: the time from asking for a child to the reply to its
"load" of a one-line file (forked, confined, the rules installed, the file run), for an exercise
that forbids every shortcut (exercise5) and one that forbids none beyond the answer key and the
grader (exercise1), interleaved; medians.

    python benchmarks/rules_cost.py --children 40
"""

import os
import statistics
import tempfile
import time

import click


def _loaded(launcher, log, request):
    """Seconds from asking for a child to the reply to its load request."""
    from grader.grading.settings import DEFAULTS
    from grader.sandbox.judge import Child

    started = time.perf_counter()
    child = Child(launcher, log, time.monotonic() + 30, DEFAULTS.memory_limit)
    try:
        child.request(request)
        return time.perf_counter() - started
    finally:
        child.stop()


@click.command()
@click.option("--children", type=click.IntRange(min=1), default=40, show_default=True, help="Children per exercise.")
def main(children):
    from grader.sandbox.judge import Launcher, load_request

    launcher = Launcher()
    launcher.start()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "submission.py")
        with open(path, "w") as file:
            file.write("import torch\n")
        requests = {"exercise5": load_request(path, "submission", ("softmax", "fused-attention", "multihead-attention")),
                    "exercise1": load_request(path, "submission")}
        log = os.path.join(folder, "child.log")
        times = {name: [] for name in requests}
        for _ in range(children):  # interleaved
            for name, request in requests.items():
                times[name].append(_loaded(launcher, log, request))
    launcher.close()
    for name, measured in times.items():
        click.echo(f"{name:<10} {1e3 * statistics.median(measured):7.1f} ms per child, loaded")


if __name__ == "__main__":
    main()
