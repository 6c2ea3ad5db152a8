"""The GPU path, end to end, in one command: run it on a machine with a CUDA device.

    python benchmarks/gpu_check.py            # about 3-6 minutes on one GPU

What it checks, each on CUDA (`--device cuda`), each a row of PASS / FAIL:
0. CUDA starts in a child confined as a student's is (Launcher.cuda_problem); where it does not, which
   layer refuses it: the same child again with the seccomp filter letting every call through, without
   the namespaces and Landlock, with neither, and without the memory limit (the rows that start CUDA
   name the layer to look at; `--record` then lists the calls);
1. solutions: `lumen-grade all --device cuda` gives full marks, with the suites' CUDA cases (the
   float16 and bfloat16 ones among them) run and none skipped, and every performance tier timed
   with CUDA events (a measured ratio);
2. `lumen-grade check`: reference = oracle and built-ins, solutions, stubs and mutants, on cpu+cuda;
3. verdicts: every honest file (tests/honest, tests/unseen) gets full marks on CUDA, and every
   one-mistake file of tests/unseen loses points (the tolerance policy holds on the GPU's kernels);
4. containment with CUDA: hostile submissions (fork bomb, memory bomb, segfault, endless loop) cost
   their own tests only, and the grader's report still comes back.

Without a CUDA device it checks nothing, says so, and exits with status 77 ("skipped"), never 0:
a check that did not run is not a pass. Exit status 0 only when every row passes, 1 otherwise.

    python benchmarks/gpu_check.py --record     # needs strace: the calls confined children make on CUDA

`--record` grades the solutions on CUDA under `strace -f` with the filter letting every call through
(the other layers as always) and lists each call the children made, marked where the allowlist lacks
it (benchmarks/child_syscalls.py's reading): the recorded run CUDA's allowance is derived from.
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from grader.grading.settings import DEFAULTS, Settings

ROOT = Path(__file__).resolve().parent.parent
GRADE = [sys.executable, "-m", "grader"]
SKIPPED = 77
HOSTILE = {"fork_bomb.py": "exercise3", "memory_bomb.py": "exercise3", "segfault.py": "exercise3",
           "loop_in_function.py": "exercise3"}


def grade_cli(*args, timeout=900):
    """(exit code, the JSON report or None, stderr) of `python -m grader ... --format json`."""
    done = subprocess.run([*GRADE, *args, "--format", "json"], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT)
    try:
        return done.returncode, json.loads(done.stdout), done.stderr
    except ValueError:
        return done.returncode, None, done.stderr + done.stdout[-2000:]


def failing(tests, most=4):
    """The tests that did not pass, with their whole messages (a CUDA error's number is at the end)."""
    return [f"{test['name']}: {test['message']}" for test in tests if test["status"] not in ("passed", "skipped")][:most]


@contextlib.contextmanager
def launcher_with(filter_allows_all=False, kernel_layers=True):
    """A launcher whose zygote is forked with one layer changed (the children inherit the change)."""
    from grader.sandbox import child, containment
    from grader.sandbox.judge import Launcher

    program = child._seccomp_program
    if filter_allows_all:  # still installed (strace sees where it starts), but every call passes
        child._seccomp_program = lambda arch, pid, gpu=False: [(child._RET, 0, 0, child._ALLOW)]
    if not kernel_layers:
        os.environ[containment.OFF_ENV] = "1"
    launcher = Launcher()
    try:
        launcher.start()
    finally:
        child._seccomp_program = program
        os.environ.pop(containment.OFF_ENV, None)
    try:
        yield launcher
    finally:
        launcher.close()


def check_cuda_starts():
    """CUDA in a confined child; where it fails, the same with each layer let go, to name the one."""
    with launcher_with() as launcher:
        problem = launcher.cuda_problem(DEFAULTS.memory_limit)
        layers = launcher.level["layers"]
    if problem is None:
        return []
    problems = [f"CUDA does not start in a confined child ({', '.join(layers)}): {problem}"]
    for title, changed, memory in (("the seccomp filter letting every call through", dict(filter_allows_all=True),
                                    DEFAULTS.memory_limit),
                                   ("no namespaces, no Landlock", dict(kernel_layers=False), DEFAULTS.memory_limit),
                                   ("neither", dict(filter_allows_all=True, kernel_layers=False), DEFAULTS.memory_limit),
                                   ("no memory limit", {}, None)):
        with launcher_with(**changed) as launcher:
            problem = launcher.cuda_problem(memory)
        problems.append(f"  with {title}: {'CUDA starts' if problem is None else problem}")
    return problems


def check_solutions():
    code, report, stderr = grade_cli("all", "--submission", str(ROOT / "solutions"), "--device", "cuda")
    if report is None:
        return [f"no report (exit {code}): {stderr[-500:]}"]
    problems = []
    for exercise in report["exercises"]:
        cuda = [test for test in exercise["tests"] if "cuda" in test["name"]]
        if not exercise["passed"] or exercise["score"] != exercise["max_score"]:
            problems.append(f"{exercise['id']}: {exercise['score']}/{exercise['max_score']}")
        if not cuda or any(test["status"] != "passed" for test in cuda):
            problems.append(f"{exercise['id']}: CUDA cases not all run and passed ({len(cuda)} found)")
            problems += [f"  {line}" for line in failing(cuda, most=2)]
        if not isinstance((exercise.get("tier") or {}).get("ratio"), (int, float)):
            problems.append(f"{exercise['id']}: no performance tier measured on CUDA: {exercise.get('tier')}")
    return problems


def check_kit():
    done = subprocess.run([*GRADE, "check"], capture_output=True, text=True, timeout=900, cwd=ROOT)
    problems = [] if done.returncode == 0 else [f"exit {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-2000:]}"]
    if "cuda" not in done.stdout:
        problems.append("the table does not show any check on cuda")
    return problems


def corpus():
    """(path, exercise id, whether it is honest) for tests/honest and tests/unseen."""
    files = [(path, path.parent.name, True) for path in sorted((ROOT / "tests" / "honest").glob("exercise*/*.py"))]
    for path in sorted((ROOT / "tests" / "unseen").glob("exercise*/*.py")):
        files.append((path, path.parent.name, path.name.startswith("honest")))
    return files


def check_verdicts():
    from grader import catalog
    from grader.grading import runner
    from grader.sandbox.judge import Launcher

    launcher = Launcher()
    launcher.start()  # before CUDA is initialised in this process: the children are forked from it
    problems = []
    try:
        for path, exercise_id, honest in corpus():
            exercise = catalog.find(exercise_id)
            with tempfile.TemporaryDirectory() as folder:
                shutil.copyfile(path, Path(folder) / exercise.file_name)
                options = Settings(submission=Path(folder), device="cuda", time_limit=60.0, perf=False)
                result = runner.grade([exercise], options, launcher=launcher).exercises[0]
            right = result.score == result.max_score if honest else result.score < result.max_score
            if not right:
                problems.append(f"{path.relative_to(ROOT)}: {result.score:g}/{result.max_score:g} "
                                f"{failing([vars(test) for test in result.tests], most=2)}")
    finally:
        launcher.close()
    return problems


def check_containment():
    problems = []
    from grader import catalog

    for name, exercise_id in HOSTILE.items():
        with tempfile.TemporaryDirectory() as folder:
            exercise = catalog.find(exercise_id)
            shutil.copyfile(ROOT / "tests" / "hostile" / name, Path(folder) / exercise.file_name)
            code, report, stderr = grade_cli(exercise_id, "--submission", folder, "--device", "cuda", "--no-perf",
                                             "--timeout", "10", "--memory-limit", "1G")
        if report is None or code != 1 or "Traceback" in stderr:
            problems.append(f"{name}: exit {code}, report {'missing' if report is None else 'present'}: "
                            f"{stderr[-300:]}")
        elif report["exercises"][0]["score"] >= report["exercises"][0]["max_score"]:
            problems.append(f"{name}: full marks for a hostile file")
    return problems


CHECKS = {
    "CUDA starts in a confined child": check_cuda_starts,
    "solutions on CUDA (fp16/bf16 cases, CUDA-event tiers)": check_solutions,
    "lumen-grade check on cpu+cuda": check_kit,
    "honest files full marks, one-mistake files lose points": check_verdicts,
    "containment together with CUDA": check_containment,
}


def cuda_device():
    """The CUDA device's name, or None; asked in a child process, because a process that has asked
    CUDA anything cannot fork children that use it (the grader's sandbox forks)."""
    ask = "import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
    done = subprocess.run([sys.executable, "-c", ask], capture_output=True, text=True, timeout=300)
    return done.stdout.strip() or None


def graded_letting_every_call_through():
    """The solutions graded on CUDA, the tiers too, by children whose filter lets every call through
    (`--record`'s traced command)."""
    from grader import catalog
    from grader.grading import runner

    with launcher_with(filter_allows_all=True) as launcher:
        report = runner.grade(catalog.EXERCISES, Settings(submission=ROOT / "solutions", device="cuda"),
                              launcher=launcher)
    print(f"solutions on {report.device}, every call let through: {report.score:g}/{report.max_score:g}",
          file=sys.stderr)


@click.command()
@click.option("--record", is_flag=True, help="List the calls confined children make on CUDA (needs strace).")
@click.option("--letting-every-call-through", "inner", is_flag=True, hidden=True)
def main(record, inner):
    if inner:
        return graded_letting_every_call_through()
    device = cuda_device()
    if device is None:
        print("gpu_check: no CUDA device here (torch.cuda.is_available() is False): nothing was checked. "
              "Run it on a machine with a GPU.")
        sys.exit(SKIPPED)
    print(f"gpu_check on {device}")
    if record:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import child_syscalls

        for line in child_syscalls.traced([sys.executable, __file__, "--letting-every-call-through"], gpu=True):
            print(line)
        return
    failed = False
    for title, check in CHECKS.items():
        started = time.monotonic()
        problems = check()
        failed = failed or bool(problems)
        print(f"{'PASS' if not problems else 'FAIL'}  {title}  ({time.monotonic() - started:.0f} s)")
        for problem in problems:
            print(f"      {problem}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
