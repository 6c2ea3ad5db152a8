"""Gradescope: build the autograder zip, and grade one submission inside Gradescope's container.

`build_bundle` writes autograder.zip: `setup.sh` (run once when Gradescope builds its image: Python,
the CPU build of torch and this kit, in a virtual environment), `run_autograder` (run for every
submission: `python -m grader gradescope-run`, wrapped in a shell fallback so that results.json is
written even when Python cannot start) and the kit's source. `run` grades `<root>/submission`:
the exercise files wherever the student put them (uploads are often nested), .py or notebooks.

The root is /autograder on Gradescope; LUMEN_AUTOGRADER_ROOT moves it (the tests use a temporary
folder laid out the same way) and LUMEN_PYTHON picks the interpreter run_autograder starts.
`stage` is shared with `batch`, whose student folders are nested too; both choose a student's file
by the rule of `submission.candidates`.
"""

import importlib.metadata
import json
import shlex
import shutil
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

import click

from grader import catalog, report, submission
from grader.results import clean_text

ROOT_ENV = "LUMEN_AUTOGRADER_ROOT"
DEFAULT_ROOT = Path("/autograder")
KIT_ROOT = Path(__file__).resolve().parent.parent  # the checkout holding pyproject.toml
KIT_PACKAGES = ("grader", "lumen_ref")

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
if [ ! -s "$results" ]; then
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

def stage(tree, dest, exercises=catalog.EXERCISES):
    """Copy each exercise's file from anywhere under `tree` into `dest` under its standard name,
    chosen by the rule of `submission.candidates`; returns ({exercise: source}, notes), where the
    notes say which file was graded and which copies were ignored (cleaned for any report)."""
    tree, chosen, notes = Path(tree), {}, []
    for exercise in exercises:
        found = submission.candidates(exercise, tree, nested=True)
        if not found:
            continue
        chosen[exercise] = found[0]
        shutil.copyfile(found[0], Path(dest) / f"{exercise.stem}{found[0].suffix}")
        where = found[0].relative_to(tree).as_posix()
        ignored = ", ".join(path.relative_to(tree).as_posix() for path in found[1:])
        notes.append(clean_text(f"{exercise.id}: graded {where}" + (f" (ignored: {ignored})" if ignored else "")))
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
    partial = path.with_name(".results.json.partial")
    partial.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(path)
    return results


def _grade(folder, exercises, hidden_visibility, options):
    """The results of grading the exercise files found under `folder`, with runner options. Every
    exercise is graded, so that its maximum is the same for every student: one with no file is
    not run, and says what to upload."""
    from grader import runner  # imports torch

    with tempfile.TemporaryDirectory(prefix="lumen-submission-") as staging:
        chosen, notes = stage(folder, staging, exercises) if folder.is_dir() else ({}, [])
        verdict = runner.grade(exercises, runner.Options(submission=Path(staging), **options))
    for result, exercise in zip(verdict.exercises, exercises):
        if exercise in chosen:
            found = submission.candidates(exercise, folder, nested=True)
            result.file = chosen[exercise].relative_to(folder).as_posix()
            result.ignored = [path.relative_to(folder).as_posix() for path in found[1:]]
        else:
            result.file = exercise.file_name
            result.error = (f"no {exercise.file_name} (or {exercise.stem}.ipynb) anywhere in your submission: "
                            "upload it under exactly this name")
    print(report.render_text(verdict))  # for the instructor's view of the run
    results = json.loads(report.render_gradescope(verdict, hidden_visibility=hidden_visibility))
    results["output"] += "\n\n" + "\n".join(notes or ["No exercise files were found in your submission."])
    return results
