"""The benchmarks still run: each explains itself with --help, and the tiers' benchmark times an
exercise end to end. What they measure is theirs to judge, never a test's; a test only keeps them
from rotting as the code under them moves (a benchmark that forked its children before the "bench"
op was registered timed nothing and printed only errors)."""

import subprocess
import sys

import pytest

from conftest import ROOT

SCRIPTS = sorted(path.name for path in (ROOT / "benchmarks").glob("*.py") if path.name != "gpu_check.py")


def run(*arguments):
    return subprocess.run([sys.executable, *arguments], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_explains_itself(script):
    done = run(f"benchmarks/{script}", "--help")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stdout.strip(), script


def test_the_tiers_benchmark_times_an_exercise():
    done = run("benchmarks/tiers.py", "--exercise", "2", "--runs", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if " exercise2 " in f" {line}"]
    assert [line.split()[2] for line in lines] == ["solution", "loop_over_rows"], done.stdout
    notes = [line for line in done.stdout.splitlines() if "not timed:" in line]
    assert all("too busy" in line for line in notes), done.stdout  # timed, or the machine was too busy
