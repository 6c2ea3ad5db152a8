"""The GPU path, end to end, in one command: run it on a machine with a CUDA device.

    python benchmarks/gpu_check.py            # about 3-6 minutes on one GPU

What it checks, each on CUDA (`--device cuda`), each a row of PASS / FAIL:
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
"""

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from grader.grading.settings import Settings

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
        if not isinstance((exercise.get("tier") or {}).get("ratio"), (int, float)):
            problems.append(f"{exercise['id']}: no performance tier measured on CUDA: {exercise.get('tier')}")
    return problems


def check_kit():
    done = subprocess.run([*GRADE, "check"], capture_output=True, text=True, timeout=900, cwd=ROOT)
    problems = [] if done.returncode == 0 else [f"exit {done.returncode}:\n{done.stdout[-3000:]}"]
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
                failing = [f"{t.name}: {t.message[:160]}" for t in result.tests
                           if t.status not in ("passed", "skipped")]
                problems.append(f"{path.relative_to(ROOT)}: {result.score:g}/{result.max_score:g} {failing[:2]}")
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


def main():
    device = cuda_device()
    if device is None:
        print("gpu_check: no CUDA device here (torch.cuda.is_available() is False): nothing was checked. "
              "Run it on a machine with a GPU.")
        return SKIPPED
    print(f"gpu_check on {device}")
    failed = False
    for title, check in CHECKS.items():
        started = time.monotonic()
        problems = check()
        failed = failed or bool(problems)
        print(f"{'PASS' if not problems else 'FAIL'}  {title}  ({time.monotonic() - started:.0f} s)")
        for problem in problems:
            print(f"      {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
