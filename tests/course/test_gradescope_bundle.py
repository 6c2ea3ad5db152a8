"""`lumen-grade gradescope-bundle`: the zip's contents, and its run_autograder run end to end against
a temporary folder laid out like Gradescope's /autograder (with the kit already installed here, so
nothing is installed: LUMEN_PYTHON points run_autograder at this interpreter)."""

import importlib.metadata
import json
import os
import re
import stat
import subprocess
import sys
import zipfile

import nbformat
import pytest
from click.testing import CliRunner

from conftest import SOLUTIONS, unwrapped
from grader import catalog
from grader.course import gradescope
from grader.grading import runner
from grader.cli.main import main
from test_formats import WRONG_SCALING, check_gradescope_results


def build(tmp_path, *args):
    out = tmp_path / "autograder.zip"
    result = CliRunner().invoke(main, ["gradescope-bundle", "--out", str(out), *map(str, args)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    # the total to type into Gradescope: what the solutions score with these settings on a CPU
    total = float(re.search(r"^total points: ([\d.]+) ", result.output, re.M).group(1))
    assert total > 0
    return out


def autograder_root(tmp_path, bundle, files):
    """A folder laid out like /autograder: source/ (the unzipped bundle), run_autograder,
    submission/ (files: relative path -> text) and results/."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for name, text in files.items():
        (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / name).write_text(text)
    return root


def as_notebook(code):
    """A Jupyter notebook whose one code cell is `code`, as a student would hand it in."""
    cells = [nbformat.v4.new_markdown_cell("# My attention homework"), nbformat.v4.new_code_cell(code)]
    return nbformat.writes(nbformat.v4.new_notebook(cells=cells))


def run_autograder(root, python=sys.executable):
    """Run the bundle's run_autograder as Gradescope does; returns results.json, parsed."""
    env = dict(os.environ, LUMEN_AUTOGRADER_ROOT=str(root), LUMEN_PYTHON=python)
    done = subprocess.run(["bash", str(root / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_the_bundle_holds_the_scripts_at_its_root_and_the_kit(tmp_path):
    suites = tmp_path / "private suites"
    suites.mkdir()
    (suites / "test_exercise3_private.py").write_text("def test_nothing():\n    pass\n")
    bundle = build(tmp_path, "--exercise", "3", "--hidden-visibility", "hidden", "--timeout", "30",
                   "--no-perf", "--suites", suites)
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
        scripts = {name: archive.read(name).decode() for name in ("setup.sh", "run_autograder")}
        modes = {name: archive.getinfo(name).external_attr >> 16 for name in scripts}
    assert {"kit/pyproject.toml", "kit/README.md", "kit/grader/cli/main.py", "kit/grader/catalog/exercise3_scaling/test_exercise3.py",
            "kit/lumen_ref/attention.py", "suites/1-private suites/test_exercise3_private.py"} <= names
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    for name, text in scripts.items():
        assert modes[name] & stat.S_IXUSR and text.startswith("#!/usr/bin/env bash\n")
        script = tmp_path / name
        script.write_text(text)
        check = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
    setup = scripts["setup.sh"]
    import torch

    assert f"--index-url https://download.pytorch.org/whl/cpu torch=={torch.__version__.split('+')[0]}" in setup
    assert 'pip install "$source_dir/kit"' in setup
    run = scripts["run_autograder"]
    assert ("-m grader gradescope-run --root \"$root\" --hidden-visibility hidden --printed-visibility visible "
            "--timeout 30.0 --exercise exercise3 --no-perf --suites \"$root\"'/source/suites/1-private suites'") in run
    assert re.search(r"^export DEBIAN_FRONTEND=noninteractive\b", setup, re.M)
    assert setup.index("DEBIAN_FRONTEND") < setup.index("apt-get")
    assert {"kit/LICENSE", "selftest/exercise3_scaling.py"} <= names


def test_setup_sh_proves_the_install_by_grading_its_built_in_case(tmp_path):
    """setup.sh's last line grades selftest/ (a solution packed in the zip) with the venv's Python:
    run here with this interpreter, it must pass, and a wrong file there must fail the image build."""
    bundle = build(tmp_path, "--exercise", "3", "--no-perf")
    source = tmp_path / "source"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(source)
        setup = archive.read("setup.sh").decode()
    (check,) = [line for line in setup.splitlines() if "selftest" in line and not line.startswith("#")]
    assert check.startswith('"$venv/bin/python" -m grader exercise3 --submission "$source_dir/selftest"')
    command = check.replace('"$venv/bin/python"', sys.executable).replace("$source_dir", str(source))
    assert subprocess.run(["bash", "-c", command], capture_output=True).returncode == 0
    (source / "selftest" / "exercise3_scaling.py").write_text(WRONG_SCALING)
    assert subprocess.run(["bash", "-c", command], capture_output=True).returncode == 1


@pytest.mark.parametrize("version, release", [("2.5.1", "2.5.1"), ("2.5.1+cpu", "2.5.1"), ("2.4.0+cu121", "2.4.0"),
                                              ("2.3.1+rocm6.0", "2.3.1"), ("2.13.0", "2.13.0")])
def test_a_released_torch_is_pinned_without_its_build_label(version, release):
    assert gradescope.release_version(version) == release


@pytest.mark.parametrize("version", ["2.6.0a0+git1234abc", "2.5.0.dev20240901+cpu", "2.5.0rc1", "2.5.1+mybuild"])
def test_a_development_or_local_torch_is_refused_with_the_fix(version, tmp_path, monkeypatch):
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: version if name == "torch" else real(name))
    monkeypatch.setattr(gradescope, "solutions_points", lambda *args: (1.0, 1.0))
    result = CliRunner().invoke(main, ["gradescope-bundle", "--out", str(tmp_path / "a.zip")])
    assert result.exit_code == 2 and not (tmp_path / "a.zip").exists()
    assert f"torch {version} is a development or locally built version" in unwrapped(result.output)
    assert "--torch VERSION" in unwrapped(result.output)
    fixed = CliRunner().invoke(main, ["gradescope-bundle", "--out", str(tmp_path / "a.zip"), "--torch", "2.5.1"])
    assert fixed.exit_code == 0, fixed.output
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        assert "whl/cpu torch==2.5.1\n" in archive.read("setup.sh").decode()


def test_run_autograder_grades_a_nested_submission_of_files_and_notebooks(tmp_path):
    bundle = build(tmp_path, "--exercise", "exercise2", "--exercise", "exercise3", "--no-perf")
    root = autograder_root(tmp_path, bundle, {
        "week 3/attention/exercise3_scaling.py": (SOLUTIONS / "exercise3_scaling.py").read_text(),
        "__MACOSX/week 3/exercise3_scaling.py": "junk a zip tool left behind",
        "week 3/notebooks/exercise2_scoring.ipynb": as_notebook((SOLUTIONS / "exercise2_scoring.py").read_text()),
    })
    results = run_autograder(root)
    check_gradescope_results(results)
    assert {test["name"].split(":")[0] for test in results["tests"]} == {"exercise2", "exercise3"}
    assert all(test["status"] == "passed" for test in results["tests"])
    assert results["score"] == sum(test["max_score"] for test in results["tests"]) > 0
    assert "exercise3: graded week 3/attention/exercise3_scaling.py\n" in results["output"] + "\n"
    assert "exercise2: graded week 3/notebooks/exercise2_scoring.ipynb\n" in results["output"] + "\n"
    assert [t["number"] for t in results["tests"]][:2] == ["2.1", "2.2"]
    assert {t["tags"][0] for t in results["tests"]} == {"exercise2", "exercise3"}
    assert {test["visibility"] for test in results["tests"]} == {"visible", "after_published"}
    assert results["execution_time"] > 0


def test_a_broken_submission_still_gets_results(tmp_path):
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "exercise3_scaling.py").write_text(WRONG_SCALING + "\ndef broken(:\n")
    results = gradescope.run(tmp_path, exercises=[catalog.find("3")], timeout=20, no_perf=True)
    assert json.loads((tmp_path / "results" / "results.json").read_text()) == results
    check_gradescope_results(results)
    assert results["score"] == 0 and results["tests"]
    assert all(test["status"] == "failed" and test["output"] for test in results["tests"])
    assert all(test["output"].startswith("not run") for test in results["tests"])
    assert "not graded: exercise3_scaling.py: importing it raised SyntaxError" in results["output"]


def test_results_are_written_when_the_grader_cannot_even_start(tmp_path):
    root = autograder_root(tmp_path, build(tmp_path), {"exercise3_scaling.py": "x = 1\n"})
    (root / "results" / "results.json").write_text("stale results of an earlier run")
    results = run_autograder(root, python=str(tmp_path / "no-such-python"))
    check_gradescope_results(results)
    assert results["score"] == 0 and results["tests"] == []
    assert "The autograder itself failed (exit status 127)" in results["output"]


def test_results_are_written_when_the_grader_fails_inside(tmp_path, monkeypatch):
    def grader_bug(exercises, options):
        raise RuntimeError("a bug in the grader")

    monkeypatch.setattr(runner, "grade", grader_bug)
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "exercise3_scaling.py").write_text("x = 1\n")
    results = gradescope.run(tmp_path)
    assert json.loads((tmp_path / "results" / "results.json").read_text()) == results
    check_gradescope_results(results)
    assert results["score"] == 0
    assert "The autograder itself failed (RuntimeError: a bug in the grader)" in results["output"]


def test_an_empty_submission_scores_zero_with_a_message_per_exercise(tmp_path):
    (tmp_path / "submission").mkdir()
    results = gradescope.run(tmp_path, exercises=[catalog.find("3"), catalog.find("5")])
    check_gradescope_results(results)
    assert results["score"] == 0
    assert {test["name"].split(":")[0] for test in results["tests"]} == {"exercise3", "exercise5"}
    assert all(test["output"].startswith("not run") for test in results["tests"])
    assert "not graded: no exercise5_softmax.py (or exercise5_softmax.ipynb) anywhere in your submission" in \
        results["output"]
    assert "No exercise files were found in your submission." in results["output"]


def test_stage_finds_files_at_any_depth_and_skips_junk(tmp_path):
    tree, dest = tmp_path / "upload", tmp_path / "staged"
    files = {
        "deep/er/exercise3_scaling.py": "deeper copy",
        "hw/exercise3_scaling.py": "chosen copy",
        ".ipynb_checkpoints/exercise5_softmax-checkpoint.ipynb": "checkpoint",
        "__MACOSX/exercise1_projection.py": "resource fork",
        "notebooks/exercise5_softmax (1).ipynb": "{}",
        "notebooks/exercise4_masking-Copy1.ipynb": "copy",
        "notebooks/exercise4_masking.ipynb": "original",
    }
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    (tree / "exercise2_scoring.py").symlink_to(SOLUTIONS / "exercise2_scoring.py")
    dest.mkdir()
    chosen, notes = gradescope.stage(tree, dest)
    assert {exercise.id: path.relative_to(tree).as_posix()
            for exercise, (sources, *_) in chosen.items() for path in sources.values()} == {
        "exercise3": "hw/exercise3_scaling.py", "exercise4": "notebooks/exercise4_masking.ipynb",
        "exercise5": "notebooks/exercise5_softmax (1).ipynb"}
    assert sorted(path.name for path in dest.iterdir()) == [
        "exercise3_scaling.py", "exercise4_masking.ipynb", "exercise5_softmax.ipynb"]
    assert (dest / "exercise3_scaling.py").read_text() == "chosen copy"
    assert (dest / "exercise4_masking.ipynb").read_text() == "original"
    assert "exercise3: graded hw/exercise3_scaling.py (ignored: deep/er/exercise3_scaling.py)" in notes


def test_the_bundle_needs_the_kits_source(tmp_path, monkeypatch):
    monkeypatch.setattr(gradescope, "KIT_ROOT", tmp_path)
    result = CliRunner().invoke(main, ["gradescope-bundle", "--out", str(tmp_path / "a.zip")])
    assert result.exit_code == 2 and "no pyproject.toml and solutions/" in unwrapped(result.output)
    assert CliRunner().invoke(main, ["gradescope-bundle", "--exercise", "9"]).exit_code == 2


@pytest.mark.parametrize("option", [["--hidden-visibility", "later"], ["--timeout", "0"]])
def test_bad_bundle_options_are_usage_errors(option, tmp_path):
    result = CliRunner().invoke(main, ["gradescope-bundle", "--out", str(tmp_path / "a.zip"), *option])
    assert result.exit_code == 2


def test_the_summary_names_exactly_the_file_graded_and_the_printing_is_shown(tmp_path):
    """A .py and a Jupyter -Copy1 notebook both uploaded: the grader grades the .py, and the summary
    says so, naming the notebook as not graded; what the code printed is in the stdout Gradescope
    shows, with the visibility the bundle asked for."""
    bundle = build(tmp_path, "--exercise", "3", "--no-perf", "--printed-visibility", "after_due_date")
    printing = WRONG_SCALING + "\nprint('debugging my scale')\n"
    root = autograder_root(tmp_path, bundle, {
        "hw/exercise3_scaling.py": printing,
        "hw/exercise3_scaling-Copy1.ipynb": as_notebook((SOLUTIONS / "exercise3_scaling.py").read_text()),
    })
    env = dict(os.environ, LUMEN_AUTOGRADER_ROOT=str(root), LUMEN_PYTHON=sys.executable)
    done = subprocess.run(["bash", str(root / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=300)
    results = json.loads((root / "results" / "results.json").read_text())
    check_gradescope_results(results)
    assert results["score"] < sum(test["max_score"] for test in results["tests"])  # the wrong .py was graded
    note = "exercise3: graded hw/exercise3_scaling.py (not graded: hw/exercise3_scaling-Copy1.ipynb)"
    assert note in results["output"] and results["output"].count("graded hw/") == 1
    assert results["stdout_visibility"] == "after_due_date"
    assert "exercise3: your code printed:\ndebugging my scale" in done.stdout
    assert note in done.stdout
    failed = [test for test in results["tests"] if test["status"] == "failed"]
    assert all(test["tags"] == ["exercise3"] for test in results["tests"])  # what a student reads: no ids
    diagnosed = [test for test in failed if test.get("extra_data", {}).get("diagnosis") == "scale-by-dk"]
    assert diagnosed and all("\n➜ " in test["output"] for test in diagnosed)  # the id for machines, words for people


def test_gradescope_run_writes_results_even_when_its_whole_time_limit_runs_out(tmp_path, monkeypatch):
    """Round 59's a03 held the judge for minutes before any child ran; gradescope-run had no backstop, and
    Gradescope got no results.json. Past the whole run's time limit (the alarm, raised here at once), the
    staff and the student are told, in the results."""
    import signal

    from grader.cli import main as cli

    if cli.OVERRUN_SIGNAL is None:
        pytest.skip("no SIGALRM on this platform: no backstop to test")
    monkeypatch.setattr(gradescope, "run", lambda root, **settings: signal.raise_signal(cli.OVERRUN_SIGNAL))
    result = CliRunner().invoke(main, ["gradescope-run", "--root", str(tmp_path), "--exercise", "exercise3",
                                       "--timeout", "5"])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert written["score"] == 0 and "past its time limit of 65 s and was stopped" in written["output"], written
    assert "not your fault" in written["output"] and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
