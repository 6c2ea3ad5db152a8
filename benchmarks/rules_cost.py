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


@click.command()
@click.option("--children", type=click.IntRange(min=1), default=40, show_default=True, help="Children per exercise.")
def main(children):
    from grader.grading.settings import DEFAULTS
    from grader.sandbox.judge import Child, Launcher, load_request

    launcher = Launcher()
    launcher.start()
    times = {"exercise5": [], "exercise1": []}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "submission.py")
        with open(path, "w") as file:
            file.write("import torch\n")
        requests = {"exercise5": load_request(path, "submission", ("softmax", "fused-attention", "multihead-attention")),
                    "exercise1": load_request(path, "submission")}
        for _ in range(children):
            for name, request in requests.items():
                started = time.perf_counter()
                child = Child(launcher, os.path.join(folder, "child.log"), time.monotonic() + 30, DEFAULTS.memory_limit)
                child.request(request)
                times[name].append(time.perf_counter() - started)
                child.stop()
    for name, measured in times.items():
        click.echo(f"{name:<10} {1e3 * statistics.median(measured):7.1f} ms per child, loaded")
    launcher.close()


if __name__ == "__main__":
    main()
