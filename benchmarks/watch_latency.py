"""How fast `lumen-grade watch` answers a save, side by side with a cold `lumen-grade exercise3`.

Three measurements, interleaved round by round so that the machine's load falls on all of them:

- cold: `python -m grader exercise3 --no-perf` in a new process (import torch, fork the zygote,
  grade, report), what a student pays without `watch`;
- warm re-grade: the re-grade `watch` runs after a save, in its warm process (the zygote forked at
  start-up, torch and the suites imported): grading exercise 3 and drawing the short report;
- save -> report: a real `lumen-grade watch exercise3` process; the file is saved and the clock
  stops when the new report's last line arrives (adds the polling interval: on average half of it).

Prints the medians and the ratio cold / warm. Goal: a warm re-grade <= 0.3 s median on CPU.

    python benchmarks/watch_latency.py --rounds 9
"""

import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import catalog  # noqa: E402
from grader.reports import text as report
from grader.grading import runner
from grader.course import watch
from grader.grading.settings import Settings

EXERCISE = catalog.find("exercise3")
GOAL = 0.3  # seconds, median warm re-grade


def cold(folder):
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", EXERCISE.id, "--submission", str(folder), "--device", "cpu",
                    "--no-perf"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


class WatchProcess:
    """`lumen-grade watch exercise3` in its own process, its report lines read on a thread."""

    def __init__(self, folder, interval):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "grader", "watch", EXERCISE.id, "--submission", str(folder), "--device", "cpu",
             "--no-perf", "--interval", str(interval)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout], daemon=True).start()
        self.next_report()

    def next_report(self):
        while not self.lines.get(timeout=300).startswith("watching: "):
            pass

    def save_and_wait(self, path, source):
        path.write_bytes(source.read_bytes())
        started = time.perf_counter()
        self.next_report()
        return time.perf_counter() - started

    def close(self):
        self.process.terminate()
        self.process.wait()


@click.command()
@click.option("--rounds", type=click.IntRange(min=1), default=9, show_default=True, help="Rounds of each measurement.")
@click.option("--interval", type=float, default=0.3, show_default=True, help="The watch process's --interval.")
def main(rounds, interval):
    folder = Path(tempfile.mkdtemp(prefix="lumen-watch-bench-"))
    student = folder / EXERCISE.file_name
    versions = [ROOT / "solutions" / EXERCISE.file_name, ROOT / "exercises" / EXERCISE.file_name]
    shutil.copyfile(versions[0], student)
    options = Settings(submission=folder, device="cpu", perf=False)

    def draw(verdict, graded, seconds):
        report.render_text(verdict, width=80)  # drawn, as watch does, but not printed here

    times = {"cold": [], "warm re-grade": [], "save -> report": []}
    live = WatchProcess(folder, interval)
    try:
        with watch.Watcher([EXERCISE], options, draw) as watcher:
            watcher.grade([EXERCISE])  # the start-up grading: imports the suites
            for number in range(rounds):
                times["cold"].append(cold(folder))
                started = time.perf_counter()
                watcher.grade([EXERCISE])
                times["warm re-grade"].append(time.perf_counter() - started)
                times["save -> report"].append(live.save_and_wait(student, versions[(number + 1) % 2]))
    finally:
        live.close()
        shutil.rmtree(folder, ignore_errors=True)
    medians = {name: statistics.median(values) for name, values in times.items()}
    click.echo(f"exercise3, --no-perf, CPU, {rounds} rounds, load average {os.getloadavg()[0]:.1f}")
    for name, median in medians.items():
        click.echo(f"  {name:<15} median {median:6.3f} s   (min {min(times[name]):.3f}, max {max(times[name]):.3f})")
    click.echo(f"  cold / warm re-grade: {medians['cold'] / medians['warm re-grade']:.1f}x")
    verdict = "meets" if medians["warm re-grade"] <= GOAL else "MISSES"
    click.echo(f"  goal: warm re-grade <= {GOAL} s median: {verdict} it")


if __name__ == "__main__":
    main()
