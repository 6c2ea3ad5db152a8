"""Gradescope: build the autograder zip, and grade one submission inside Gradescope's container.

`build_bundle` writes autograder.zip: `setup.sh` (run once when Gradescope builds its image: Python,
the CPU build of torch and this kit, in a virtual environment), `run_autograder` (run for every
submission: `python -m grader gradescope-run`, wrapped in a shell fallback so that results.json is
written even when Python cannot start) and the kit's source. `run` grades `<root>/submission`:
the exercise files wherever the student put them (uploads are often nested), .py or notebooks.

The root is /autograder on Gradescope; LUMEN_AUTOGRADER_ROOT moves it (the tests use a temporary
folder laid out the same way) and LUMEN_PYTHON picks the interpreter run_autograder starts.
`find_exercise_files` and `stage` are shared with `batch`, whose student folders are nested too.
"""

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

import click

from grader import catalog, containment, files, report
from grader.results import ExerciseResult, GradeReport, TestResult

ROOT_ENV = "LUMEN_AUTOGRADER_ROOT"
DEFAULT_ROOT = Path("/autograder")
KIT_ROOT = Path(__file__).resolve().parent.parent  # the checkout holding pyproject.toml
KIT_PACKAGES = ("grader", "lumen_ref")
IGNORED_DIRS = {"__MACOSX", "__pycache__", "node_modules"}  # besides every folder starting with "."

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image: Python, the CPU build
# of torch (no multi-GB CUDA download), then the Lumen attention kit, in a virtual environment.
set -euo pipefail
source_dir="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
venv="${{LUMEN_AUTOGRADER_ROOT:-/autograder}}/lumen-venv"
apt-get update
apt-get install -y --no-install-recommends python3 python3-pip python3-venv
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --upgrade pip
"$venv/bin/python" -m pip install --index-url https://download.pytorch.org/whl/cpu {torch}
"$venv/bin/python" -m pip install "$source_dir/kit"
"$venv/bin/python" -m grader list --submission "$source_dir" > /dev/null  # the kit starts
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission. It grades <root>/submission and always leaves
# <root>/results/results.json behind: if the grader cannot even start, one that says so.
root="${{LUMEN_AUTOGRADER_ROOT:-/autograder}}"
python="${{LUMEN_PYTHON:-$root/lumen-venv/bin/python}}"
results="$root/results/results.json"
mkdir -p "$root/results"
rm -f "$results"
cd "$root"
"$python" -m grader gradescope-run --root "$root" {options}
status=$?
if [ "$status" -ne 0 ] || [ ! -f "$results" ] || [ -L "$results" ]; then
  # the grader did not finish: nothing at that path (a submission's file, link or folder) is kept
  rm -rf "$results"
  message="The autograder itself failed (exit status $status) before it could grade your submission."
  message="$message This is not your fault: please tell the course staff."
  printf '{{"score": 0.0, "output": "%s", "tests": []}}\n' "$message" > "$results"
fi
exit 0
"""


class BundleError(click.ClickException):
    """The bundle cannot be built from here (no source checkout of the kit): a usage error."""

    exit_code = 2


def build_bundle(out, *, hidden_visibility="after_published", timeout=60.0, suites=(), exercises=(),
                 no_perf=False):
    """Write Gradescope's autograder zip to `out`; returns its member names.

    The run options (visibility of hidden checks, time limit, exercises, private suites, no
    performance tiers) are baked into run_autograder; private suites travel in the zip under suites/."""
    if not (KIT_ROOT / "pyproject.toml").is_file():
        raise BundleError(f"gradescope-bundle packs the kit's source, and there is no pyproject.toml in "
                          f"{KIT_ROOT}: run it from a checkout of the kit (pip install -e .)")
    options = ["--hidden-visibility", hidden_visibility, "--timeout", str(timeout)]
    for exercise in exercises:
        options += ["--exercise", exercise.id]
    if no_perf:
        options.append("--no-perf")
    files = {}  # name in the zip -> path on disk
    for number, folder in enumerate(suites, start=1):
        inside = f"suites/{number}-{Path(folder).name}"
        files.update(_tree(Path(folder), inside))
        options += ["--suites", f"$root/source/{inside}"]
    for package in KIT_PACKAGES:
        files.update(_tree(KIT_ROOT / package, f"kit/{package}"))
    for name in ("pyproject.toml", "README.md"):
        files[f"kit/{name}"] = KIT_ROOT / name
    torch = "torch==" + importlib.metadata.version("torch").split("+")[0]  # what the instructor tested
    scripts = {"setup.sh": SETUP_SH.format(torch=shlex.quote(torch)),
               "run_autograder": RUN_AUTOGRADER.format(options=_shell_words(options))}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, text in scripts.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = 0o100755 << 16  # a regular, executable file
            bundle.writestr(info, text)
        for name, path in sorted(files.items()):
            bundle.write(path, name)
    return [*scripts, *sorted(files)]


def _shell_words(words):
    """Quote for bash; a word starting with `$root/` keeps that variable (the container's root) live."""
    return " ".join('"$root"' + shlex.quote(word[len("$root"):]) if word.startswith("$root/")
                    else shlex.quote(word) for word in words)


def _tree(folder, inside):
    """{zip name: path} for the files of a package or suite folder, caches left out."""
    return {
        f"{inside}/{path.relative_to(folder).as_posix()}": path
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


# -- finding a student's files -------------------------------------------------------------------

def find_exercise_files(tree, exercises=catalog.EXERCISES):
    """{exercise: [paths]} of the exercise files anywhere under `tree`, shallowest first:
    `exercise3_scaling.py`, or a notebook `exercise3_*.ipynb`. Only regular files count (a
    symlink could point at anything); hidden folders, caches and __MACOSX are skipped."""
    tree = Path(tree)
    found = {exercise: [] for exercise in exercises}
    notebook = {exercise: re.compile(rf"exercise{exercise.number}_.*\.ipynb") for exercise in exercises}
    for folder, dirs, names in os.walk(tree):
        dirs[:] = [name for name in dirs if not name.startswith(".") and name not in IGNORED_DIRS]
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            for exercise in exercises:
                if name == exercise.file_name or notebook[exercise].fullmatch(name):
                    found[exercise].append(path)
    stems = {exercise.stem for exercise in exercises}

    def preferred(path):  # shallowest; then the exact name before "-Copy1", " (1)" and the like
        return len(path.relative_to(tree).parts), path.stem not in stems, str(path)

    return {exercise: sorted(paths, key=preferred) for exercise, paths in found.items() if paths}


def stage(tree, dest, exercises=catalog.EXERCISES):
    """Copy each exercise's file from anywhere under `tree` into `dest` under its standard name
    (the shallowest .py, and the shallowest notebook); returns ({exercise: source}, notes), where
    the notes say where files were found and which copies were ignored."""
    tree, chosen, notes = Path(tree), {}, []
    for exercise, paths in find_exercise_files(tree, exercises).items():
        for suffix in (".py", ".ipynb"):
            candidates = [path for path in paths if path.suffix == suffix]
            if not candidates:
                continue
            shutil.copyfile(candidates[0], Path(dest) / f"{exercise.stem}{suffix}")
            chosen.setdefault(exercise, candidates[0])
            where = candidates[0].relative_to(tree).as_posix()
            ignored = ", ".join(path.relative_to(tree).as_posix() for path in candidates[1:])
            notes.append(f"{exercise.id}: graded {where}" + (f" (ignored: {ignored})" if ignored else ""))
    return chosen, notes


# -- grading inside the container ------------------------------------------------------------------

def run(root, *, hidden_visibility="after_published", timeout=60.0, suites=(), exercises=(), no_perf=False,
        seed=0):
    """Grade <root>/submission into <root>/results/results.json, which is always written: a
    failure of the grader itself becomes a result that says so. Returns the results dict."""
    started = time.monotonic()
    root = Path(root)
    try:
        options = {"seed": seed, "time_limit": timeout, "suites": list(suites), "perf": not no_perf}
        results = _grade(root / "submission", list(exercises) or list(catalog.EXERCISES), hidden_visibility,
                         options)
    except Exception as error:  # the student must get a result whatever went wrong in here
        traceback.print_exc()  # Gradescope keeps stdout and stderr for the instructor
        results = {"score": 0.0, "output": f"The autograder itself failed ({type(error).__name__}: "
                   f"{error}). This is not your fault: please tell the course staff.", "tests": []}
    results["execution_time"] = round(time.monotonic() - started, 2)
    path = root / "results" / "results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():  # left by a submission: the judge's results replace it
        shutil.rmtree(path)
    files.write_replacing(path, json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    return results


def _grade(submission, exercises, hidden_visibility, options):
    """The results of grading the exercise files found under `submission`, with runner options."""
    from grader import runner  # imports torch: only once there is something to grade

    with tempfile.TemporaryDirectory(prefix="lumen-submission-") as staging:
        chosen, notes = stage(submission, staging, exercises) if submission.is_dir() else ({}, [])
        graded = [exercise for exercise in exercises if exercise in chosen]
        verdict = GradeReport([], "none", options["seed"],
                              containment={"level": containment.expected_level(), "layers": []})
        if graded:
            verdict = runner.grade(graded, runner.Options(submission=Path(staging), **options))
    by_id = {result.id: result for result in verdict.exercises}
    for exercise, source in chosen.items():
        by_id[exercise.id].file = source.relative_to(submission).as_posix()
    verdict.exercises = [by_id.get(exercise.id) or _missing(exercise) for exercise in exercises]
    print(report.render_text(verdict))  # for the instructor's view of the run
    results = json.loads(report.render_gradescope(verdict, hidden_visibility=hidden_visibility))
    results["output"] += "\n\n" + "\n".join(notes or ["No exercise files were found in your submission."])
    if verdict.containment_level != containment.KERNEL:
        print(PROCESS_WARNING)
        results["output"] = PROCESS_WARNING + "\n\n" + results["output"]
    return results


PROCESS_WARNING = ("WARNING (for the course staff): containment level 'process' — the autograder could not "
                   "confine the submission's code by the kernel (no Landlock, no mount namespace), so a "
                   "submission could tamper with this run's files. See docs/security.md.")


def _missing(exercise):
    """The result of an exercise whose file is nowhere in the submission."""
    return ExerciseResult(exercise.id, exercise.title, exercise.file_name, tests=[TestResult(
        "find the file", "error", 1.0,
        message=f"no {exercise.file_name} (or {exercise.stem}.ipynb) anywhere in your submission: "
                "upload it under exactly this name",
    )])
