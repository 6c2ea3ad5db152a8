"""What the kernel's confinement costs a child: the time from asking for a child to its first
message (forked, confined, ready), with the kernel layers and without them
(LUMEN_NO_KERNEL_CONTAINMENT=1), two zygotes side by side, interleaved; medians.

    python benchmarks/confinement_cost.py --children 40
"""

import os
import statistics
import tempfile
import time

import click


@click.command()
@click.option("--children", type=click.IntRange(min=1), default=40, show_default=True, help="Children per setting.")
def main(children):
    from grader.grading.settings import DEFAULTS
    from grader.sandbox.judge import Launcher, Child

    launchers = {}
    for name, off in (("kernel layers", None), ("no kernel layers", "1")):
        if off:
            os.environ["LUMEN_NO_KERNEL_CONTAINMENT"] = off
        launchers[name] = Launcher()
        launchers[name].start()  # the zygote keeps the environment it was forked with
        os.environ.pop("LUMEN_NO_KERNEL_CONTAINMENT", None)
    times = {name: [] for name in launchers}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(children):
            for name, launcher in launchers.items():
                started = time.perf_counter()
                child = Child(launcher, os.path.join(folder, "child.log"), time.monotonic() + 30, DEFAULTS.memory_limit)
                times[name].append(time.perf_counter() - started)
                child.stop()
    for name, launcher in launchers.items():
        click.echo(f"{name:<18} {1e3 * statistics.median(times[name]):7.1f} ms per child  {launcher.level}")
        launcher.close()


if __name__ == "__main__":
    main()
