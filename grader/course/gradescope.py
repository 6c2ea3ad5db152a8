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

import dataclasses
import importlib.metadata
import json
import re
import shlex
import tempfile
import time
import traceback
import zipfile
from pathlib import Path
from typing import NamedTuple

from grader import catalog
from grader.course import ladder, policy as course_policy
from grader.sandbox import files
from grader.reports import gradescope as results_json
from grader.grading import submission
from grader.sandbox import containment
from grader.grading.results import clean_text
from grader.grading.settings import COURSE_FILE, DEFAULTS, Policy, Settings

ROOT_ENV = "LUMEN_AUTOGRADER_ROOT"
DEFAULT_ROOT = Path("/autograder")
KIT_ROOT = Path(__file__).resolve().parents[2]  # the checkout holding pyproject.toml
KIT_PACKAGES = ("grader", "lumen_ref")

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image: Python, the CPU build
# of torch (no multi-GB CUDA download), then the Lumen attention kit, in a virtual environment.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive  # apt must never stop to ask a question: nobody can answer
source_dir="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
venv="${{LUMEN_AUTOGRADER_ROOT:-/autograder}}/lumen-venv"
apt-get update
apt-get install -y --no-install-recommends python3 python3-pip python3-venv
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --upgrade pip
"$venv/bin/python" -m pip install --index-url https://download.pytorch.org/whl/cpu {torch}
"$venv/bin/python" -m pip install "$source_dir/kit"
# Prove the install before any student submits: grade the solution of exercise 3 packed in the zip
# (torch, the sandbox and the suites all run); it must score full marks, or the image build fails.
"$venv/bin/python" -m grader exercise3 --submission "$source_dir/selftest" --device cpu --no-perf
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


class BundleError(ValueError):
    """The bundle cannot be built from here (no source checkout of the kit, a torch Gradescope cannot
    install): the CLI reports it as a usage error."""


SELFTEST = catalog.find("exercise3")  # setup.sh grades its solution to prove the install
# A torch from PyPI or PyTorch's index: a release, with at most a build-variant label (+cpu, +cu121).
_RELEASE = re.compile(r"(\d+(?:\.\d+)*)(?:\+(?:cpu|cu\d+|rocm[\d.]+|xpu))?")


def release_version(version):
    """The release a torch version names (2.5.1+cpu -> 2.5.1); a development build or a local one
    (2.6.0a0+git1234, 2.5.0.dev20240901, 2.5.1+mybuild) is refused: PyTorch's index has no such
    wheel, and Gradescope's image build would fail far from here."""
    found = _RELEASE.fullmatch(version)
    if not found:
        raise BundleError(f"torch {version} is a development or locally built version, which Gradescope "
                          "cannot install from PyTorch's CPU index: pass --torch VERSION with the release "
                          "to install there (e.g. --torch 2.5.1), or install a released torch here "
                          "(pip install torch==2.5.1) and build the bundle again")
    return found.group(1)


def build_bundle(out, *, hidden_visibility=results_json.HIDDEN_VISIBILITY,
                 printed_visibility=results_json.PRINTED_VISIBILITY, timeout=DEFAULTS.time_limit, suites=(),
                 exercises=(), no_perf=False, torch=None, policy=Policy()):
    """Write Gradescope's autograder zip to `out`; returns its member names.

    The run options (visibility of hidden checks and of the student's printing, time limit,
    exercises, private suites, no performance tiers) are baked into run_autograder; private suites
    travel in the zip under suites/, the course's policy (read from its course file) as
    lumen-course.toml. `torch`: the version setup.sh installs (default: this one's)."""
    require_checkout()
    torch = torch_pin(torch)
    options = ["--hidden-visibility", hidden_visibility, "--printed-visibility", printed_visibility,
               "--timeout", str(timeout)]
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
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        files[f"kit/{name}"] = KIT_ROOT / name
    files[f"selftest/{SELFTEST.file_name}"] = KIT_ROOT / "solutions" / SELFTEST.file_name
    texts = {}  # name in the zip -> its text, made here
    if policy.source is not None:
        texts[COURSE_FILE.name] = course_policy.as_toml(policy)
        options += ["--course", f"$root/source/{COURSE_FILE.name}"]
    scripts = {"setup.sh": SETUP_SH.format(torch=shlex.quote(torch)),
               "run_autograder": RUN_AUTOGRADER.format(options=_shell_words(options))}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, text in scripts.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = 0o100755 << 16  # a regular, executable file
            bundle.writestr(info, text)
        for name, text in texts.items():
            bundle.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), text)
        for name, path in sorted(files.items()):
            bundle.write(path, name)
    return [*scripts, *texts, *sorted(files)]


def require_checkout():
    """The bundle packs the kit's source and its solutions: only a checkout has them."""
    if not (KIT_ROOT / "pyproject.toml").is_file() or not (KIT_ROOT / "solutions").is_dir():
        raise BundleError(f"gradescope-bundle packs the kit's source and grades its solutions, and there is no "
                          f"pyproject.toml and solutions/ in {KIT_ROOT}: run it from a checkout of the kit "
                          "(pip install -e .)")


def torch_pin(version=None):
    """The requirement setup.sh installs: the given torch release, or the one installed here."""
    return "torch==" + release_version(version or importlib.metadata.version("torch"))


def solutions_points(exercises=(), suites=(), timeout=DEFAULTS.time_limit):
    """(score, max_score) of the kit's solutions graded as the bundle will grade on Gradescope's CPU:
    the total points of the assignment, and a check that the bundle gives the solutions all of them."""
    from grader.grading import runner  # imports torch

    options = Settings(submission=KIT_ROOT / "solutions", device="cpu", time_limit=timeout,
                             suites=list(suites), perf=False)
    verdict = runner.grade(list(exercises) or list(catalog.EXERCISES), options)
    return verdict.score, verdict.max_score


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

def stage(tree, dest, exercises=catalog.EXERCISES, limits=DEFAULTS):
    """Copy each exercise's file from anywhere under `tree` into `dest` under its standard name,
    chosen by the rule of `submission.candidates`; returns (staged, notes): what `stage_files`
    returns, and notes that say which file was graded, which copies were ignored, and which
    entries bear an exercise's name but are not files (a link, a pipe), so were not graded."""
    found = submission.listing(tree, nested=True, limits=limits)
    staged = stage_files(tree, dest, exercises, limits, found)
    notes = []
    for exercise in exercises:
        sources, ignored, refusal = staged.get(exercise, Staged({}, []))
        others = f" (ignored: {listed(submitted_name(tree, path) for path in ignored)})" if ignored else ""
        notes += [f"{exercise.id}: {refusal}{others}" if refusal else f"{exercise.id}: graded {submitted_name(tree, source)}{others}"
                  for source in sources.values()]
    return staged, notes + not_file_notes(tree, found, exercises)


def not_file_notes(tree, found, exercises):
    """A line for each entry of the `listing` of `tree` that bears an exercise's name but is not a
    file (a link, a pipe, a device), or is a file named nearly as an exercise that has none, so was not
    graded, and for each folder that could not be read, so was not searched: the student learns why."""
    notes = []
    for exercise in exercises:
        ungraded = f"{exercise.id}: not graded"
        notes += _at_most([f"{ungraded} {submitted_name(tree, path)}: it is {submission.kind_of(path)}, not a file"
                           for path in submission.not_files(exercise, found)], ungraded)
        notes += _at_most([f"{ungraded} {submitted_name(tree, path)}: name it "
                           f"{exercise.stem + path.suffix if submission.is_notebook(path) else exercise.file_name}"
                           for path in submission.misnamed(exercise, found)], ungraded)
    return notes + _at_most([f"not searched: the folder {submitted_name(tree, path) if path != Path(tree) else '.'} "
                             "could not be read" for path in found.unreadable], "not searched")


def _at_most(notes, what):
    """The first NAMES_LISTED of `notes`, then one line for the rest ('exercise3: not graded: 5995 more like those')."""
    rest = len(notes) - NAMES_LISTED
    return notes[:NAMES_LISTED] + ([f"{what}: {rest} more like those"] if rest > 0 else [])


class Staged(NamedTuple):
    """One exercise's files as `stage_files` found them: {staged name: the file chosen}, the other
    candidates (not graded), and, where the file chosen was refused (so not staged), why."""
    sources: dict
    ignored: list
    refusal: str = ""


def stage_files(tree, dest, exercises=catalog.EXERCISES, limits=DEFAULTS, found=None, secrets=()):
    """Copy each exercise's file, chosen by the rule of `submission.candidates` (the one rule of
    `lumen-grade all`, `batch` and Gradescope), into `dest` under its standard name; returns
    {exercise: Staged}.

    Each file is read as the judge reads a student's file (`files.read_submission`: a regular
    file, bounded, never the kit's own file by a hard link), before it is copied: the copy would
    hide what the original is. A file refused costs its exercise alone, as in `lumen-grade all`:
    it is not copied, and its Staged says why in one line. `secrets`: trees of the kit's beside the
    installed one (a Gradescope bundle's source), whose files are refused as the kit's own are. Raises
    SubmissionError (one line, for the student's row) past `limits` (the tree's depth and size, the
    bytes staged)."""
    found = submission.listing(tree, nested=True, limits=limits) if found is None else found
    staged, total = {}, 0
    for exercise in exercises:
        chosen = submission.candidates(exercise, tree, nested=True, found=found)
        if not chosen:
            continue
        name = f"{exercise.stem}{chosen[0].suffix}"
        limit = submission.MAX_NOTEBOOK_BYTES if submission.is_notebook(chosen[0]) else files.MAX_SOURCE_BYTES
        try:
            data = files.read_submission(chosen[0], limit, secrets)
        except OSError as error:
            reason = str(error) if isinstance(error, files.UnsafeFile) else error.strerror or str(error)
            reason = reason.replace(str(chosen[0]), submitted_name(tree, chosen[0]))
            refusal = clean_text(f"cannot grade {submitted_name(tree, chosen[0])}: {reason}", newlines=False)
            staged[exercise] = Staged({name: chosen[0]}, chosen[1:], refusal)
            continue
        total += len(data)
        if total > limits.tree_bytes:
            raise submission.TreeTooLarge(f"your exercise files come to more than {limits.tree_bytes >> 20} MiB "
                                          "together: hand in each exercise's file once, without its outputs",
                                          chosen[0], "read the file")
        Path(dest, name).write_bytes(data)
        staged[exercise] = Staged({name: chosen[0]}, chosen[1:])
    return staged


# the most characters of a file's name, and the most files of one kind, that a report, a note or a gradebook cell
# names: an upload of thousands of copies under a path of thousands of characters made a record of 45 MB and a
# gradebook cell of 22 MB from a few kilobytes zipped (round 83's a02 to a05)
NAME_CHARS, NAMES_LISTED = 160, 5


def submitted_name(tree, path):
    """A file of a student's upload as they know it: its path relative to the upload's folder, cut in the middle
    past NAME_CHARS characters (the file's own name kept at its end)."""
    name = clean_text(Path(path).relative_to(tree).as_posix(), newlines=False)
    if len(name) <= NAME_CHARS:
        return name
    half = NAME_CHARS // 2
    return f"{name[:half - 1]}…{name[-half:]}"


def listed(names):
    """The first NAMES_LISTED of `names`, and how many more: 'a, b, c, d, e and 5995 more'."""
    names = list(names)
    more = f" and {len(names) - NAMES_LISTED} more" if len(names) > NAMES_LISTED else ""
    return ", ".join(names[:NAMES_LISTED]) + more


def graded_notes(folder, staged, verdict):
    """A line per exercise naming exactly the file the grader reports it graded, and the uploaded
    copies it did not grade (a second copy deeper down, a notebook beside the .py, a -Copy1)."""
    notes = []
    for result in verdict.exercises:
        exercise = catalog.find(result.id)
        if exercise not in staged:
            continue
        sources, ignored, refusal = staged[exercise]
        graded = sources.get(Path(result.file).name)
        others = [source for name, source in sources.items() if source is not graded] + ignored
        line = f"{exercise.id}: graded {submitted_name(folder, graded)}" if graded else f"{exercise.id}: nothing graded"
        if refusal:  # the file chosen was not staged: why, and the other copies
            line, others = f"{exercise.id}: {refusal}", ignored
        if others:
            line += f" (not graded: {listed(submitted_name(folder, path) for path in others)})"
        notes.append(line)
    return notes


def as_submitted(folder, staged, exercise):
    """The fields (`file`, `ignored`; for a missing or refused file `error` and `handed_in`) by which a report
    names an exercise's file to the student whose `folder` was staged (`stage_files`): the file
    graded and the copies not graded, relative to that folder, never the grader's staging copy; for
    an exercise with no file there, its standard name and what to hand in."""
    if exercise not in staged:
        return {"file": exercise.file_name, "ignored": [], "handed_in": False,
                "error": f"no {exercise.file_name} (or {exercise.stem}.ipynb) anywhere in your submission: "
                         "upload it under exactly this name"}
    sources, ignored, refusal = staged[exercise]
    graded, *others = sources.values()
    others = [*others, *ignored]
    more = [f"… and {len(others) - NAMES_LISTED} more"] if len(others) > NAMES_LISTED else []
    return {"file": submitted_name(folder, graded),
            "ignored": [submitted_name(folder, path) for path in others[:NAMES_LISTED]] + more,
            **({"error": refusal, "handed_in": True} if refusal else {})}


# -- grading inside the container ------------------------------------------------------------------

def run(root, *, hidden_visibility=results_json.HIDDEN_VISIBILITY, printed_visibility=results_json.PRINTED_VISIBILITY,
        timeout=DEFAULTS.time_limit, suites=(), exercises=(), no_perf=False, seed=DEFAULTS.seed, policy=Policy()):
    """Grade <root>/submission into <root>/results/results.json, which is always written: a
    failure of the grader itself becomes a result that says so. Returns the results dict.

    The hint ladder climbs across uploads: <root>/submission_metadata.json's previous submissions
    carry the results this kit wrote for them (see `hint_ladder`)."""
    started = time.monotonic()
    root = Path(root)
    try:
        options = {"seed": seed, "time_limit": timeout, "suites": list(suites), "perf": not no_perf, "policy": policy}
        results = _grade(root / "submission", list(exercises) or list(catalog.EXERCISES), hidden_visibility,
                         options, hint_ladder(root / METADATA, policy), secrets=[root / "source"])
        results["stdout_visibility"] = printed_visibility
    except Exception as error:  # the student must get a result whatever went wrong in here
        traceback.print_exc()  # Gradescope keeps stdout and stderr for the instructor
        results = failed(f"{type(error).__name__}: {error}")
    return write_results(root, results, started)


def failed(why):
    """The results of an upload the autograder itself could not grade, `why` said to the student."""
    return {"score": 0.0, "output": f"The autograder itself failed ({why}). This is not your fault: please tell the "
                                    "course staff.", "tests": []}


def write_results(root, results, started):
    """Write `results` (with the time since `started`, time.monotonic()) as <root>/results/results.json,
    replacing whatever is there; returns them."""
    results["execution_time"] = round(time.monotonic() - started, 2)
    path = Path(root) / "results" / "results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():  # left by a submission: the judge's results replace it
        files.remove_tree(path)
    files.write_replacing(path, json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    return results


METADATA = "submission_metadata.json"  # Gradescope's, beside submission/: this upload, the assignment, the earlier ones
MAX_METADATA_BYTES = 64 << 20  # every earlier upload's results are in it


def hint_ladder(path, policy):
    """The Ladder of a Gradescope upload, from its submission_metadata.json at `path` (none, or one
    that cannot be read: a first upload, said on stdout for the staff). Each earlier upload's
    `results` is the results.json this kit wrote for it, whose extra_data keeps what it showed
    (`ladder.record`); the due date is the course file's, else the assignment's; the time compared
    with it is the upload's own."""
    try:
        metadata = json.loads(files.read_regular(path, MAX_METADATA_BYTES).decode("utf-8"))
    except FileNotFoundError:
        metadata = {}
    except (OSError, ValueError) as error:
        print(f"hint ladder: {path} unreadable ({error}): every hint starts at the first level")
        metadata = {}
    metadata = metadata if isinstance(metadata, dict) else {}
    assignment = metadata.get("assignment") if isinstance(metadata.get("assignment"), dict) else {}
    if policy.due is None and ladder.moment(assignment.get("due_date")) is not None:
        policy = dataclasses.replace(policy, due=ladder.moment(assignment["due_date"]))
    return ladder.Ladder(policy, history=ladder.history(metadata), now=ladder.moment(metadata.get("created_at")))


def _grade(folder, exercises, hidden_visibility, options, hints=None, secrets=()):
    """The results of grading the exercise files found under `folder`, with runner options, each
    mistake at the level the Ladder `hints` chooses. Every exercise is graded, so that its maximum
    is the same for every student: one with no file is not run, and says what to upload. What the
    student's code printed goes to stdout, which Gradescope shows as `stdout_visibility` says.
    `secrets`: the bundle's trees, whose files an uploaded hard link may not stand for (`stage_files`)."""
    from grader.grading import runner  # imports torch

    with tempfile.TemporaryDirectory(prefix="lumen-submission-") as staging:
        try:
            found = submission.listing(folder, nested=True)
            staged = stage_files(folder, staging, exercises, found=found, secrets=secrets) if folder.is_dir() else {}
        except submission.SubmissionError as error:  # the student's upload: a result that says why
            print(error)
            return {"score": 0.0, "output": f"Your submission could not be graded: {error}", "tests": []}
        settings = Settings(submission=Path(staging), **options)
        versions = ladder.digests(exercises, settings)
        verdict = runner.grade(exercises, settings)
        notes = graded_notes(folder, staged, verdict) + not_file_notes(folder, found, exercises)
    hints = hints or ladder.Ladder(settings.policy)
    verdict, said = hints.apply(verdict, versions, withhold=False)  # extra_data keeps it all, for staff
    print("\n".join(said), end="\n" if said else "")
    verdict = dataclasses.replace(verdict, exercises=[
        dataclasses.replace(result, **as_submitted(folder, staged, exercise))
        for result, exercise in zip(verdict.exercises, exercises)])
    print("\n".join(notes or ["No exercise files were found in the submission."]))
    for exercise in verdict.exercises:
        if exercise.output:
            print(f"\n{exercise.id}: your code printed:\n{exercise.output}")
    results = json.loads(results_json.render(verdict, hidden_visibility=hidden_visibility, policy=settings.policy))
    results["extra_data"][ladder.RECORD_KEY] = ladder.record(verdict, versions)  # for the next upload's ladder
    results["output"] += "\n\n" + "\n".join(notes or ["No exercise files were found in your submission."])
    if verdict.containment_level != containment.KERNEL:
        print(PROCESS_WARNING)
        results["output"] = PROCESS_WARNING + "\n\n" + results["output"]
    return results


PROCESS_WARNING = ("WARNING (for the course staff): containment level 'process' — the autograder could not "
                   "confine the submission's code by the kernel (no Landlock, no mount namespace), so a "
                   "submission could tamper with this run's files. See docs/security.md.")
