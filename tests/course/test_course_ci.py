"""The course-CI examples in examples/: GitHub workflows and GitLab CI validated against their JSON
schemas (check-jsonschema's vendored copies, a test extra), actions on majors that run on Node 24,
the Slurm scripts' #SBATCH lines, and every `lumen-grade` command in them parsed by the real CLI."""

import re
import shlex
import subprocess
import sys

import click
import pytest

from conftest import ROOT
from grader.cli.main import main

EXAMPLES = ROOT / "examples"
WORKFLOWS = sorted(EXAMPLES.glob("github-actions-*.yml"))
SLURM = sorted(EXAMPLES.glob("slurm-*.sbatch"))
# The first major of each action that runs on Node 24 (GitHub retired Node 20 on its runners).
NODE24_MAJORS = {"actions/checkout": 5, "actions/setup-python": 6, "actions/upload-artifact": 6,
                 "actions/download-artifact": 7, "mikepenz/action-junit-report": 6}


def validate(schema, paths):
    """check-jsonschema's command line against one of its vendored schemas."""
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, paths)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_there_are_examples_of_each_kind():
    assert [path.name for path in WORKFLOWS] == ["github-actions-class.yml", "github-actions-grade.yml"]
    assert [path.name for path in SLURM] == ["slurm-grade-gpu.sbatch", "slurm-grade.sbatch", "slurm-merge.sbatch"]


def test_the_github_workflows_are_valid():
    validate("vendor.github-workflows", WORKFLOWS)


def test_the_gitlab_example_is_valid():
    validate("vendor.gitlab-ci", [EXAMPLES / "gitlab-ci.yml"])


def test_the_validator_rejects_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text((EXAMPLES / "github-actions-grade.yml").read_text().replace("runs-on:", "runs_on:"))
    with pytest.raises(AssertionError):
        validate("vendor.github-workflows", [broken])


def test_every_action_is_on_a_node24_major():
    for path in WORKFLOWS:
        for action, major in re.findall(r"uses:\s*([\w.-]+/[\w.-]+)@v(\d+)", path.read_text()):
            assert action in NODE24_MAJORS, f"{path.name}: {action} is not a known action"
            assert int(major) >= NODE24_MAJORS[action], f"{path.name}: {action}@v{major} runs on Node 20"
        assert not re.search(r"uses:\s*\S+@(?!v\d+\s)", path.read_text()), f"{path.name}: pin a major, vN"


def commands(path, values):
    """The `lumen-grade` command lines of a file, variables replaced by sample values, split as the
    shell would."""
    lines = []
    for line in path.read_text().splitlines():
        line = re.sub(r"^\s*(- )?", "", line)
        if line.startswith("lumen-grade "):
            for name, value in values.items():
                line = line.replace(name, value)
            lines.append(shlex.split(line))
    return lines


def parses(words):
    """Parse a command line with the real CLI, without running it (a usage error raises)."""
    assert words[0] == "lumen-grade"
    command = main.get_command(click.Context(main), words[1])
    assert command is not None, f"no command {words[1]!r}"
    command.make_context(words[1], list(words[2:]))


@pytest.mark.parametrize("path", [*WORKFLOWS, *SLURM], ids=lambda path: path.name)
def test_the_commands_of_the_examples_exist_in_the_cli(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the folders and files the commands name, as on the course's machine
    for folder in ("submissions/amy", "exercises", "shards/0/grades"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "roster.csv").write_text("student_id,name,email\namy,Amy,amy@x\n")
    found = commands(path, {"${{ matrix.shard }}": "0", "$SHARDS": "4", "$SLURM_ARRAY_TASK_ID": "0",
                            "$SLURM_CPUS_PER_TASK": "4", "shards/*": "shards/0"})
    assert found, f"{path.name} runs no lumen-grade command"
    for words in found:
        parses(words)
    with pytest.raises(click.UsageError):  # the check can fail
        parses([*found[0], "--no-such-option"])


def sbatch_options(path):
    return dict(re.match(r"#SBATCH --([\w-]+)(?:=(\S+))?", line).groups()
                for line in path.read_text().splitlines() if line.startswith("#SBATCH"))


@pytest.mark.parametrize("path", SLURM, ids=lambda path: path.name)
def test_the_slurm_scripts_are_consistent(path):
    text = path.read_text()
    assert text.startswith("#!/bin/bash\n")
    subprocess.run(["bash", "-n", str(path)], check=True)  # valid shell
    options = sbatch_options(path)
    # sbatch reads #SBATCH lines only before the first command
    first_command = next(i for i, line in enumerate(text.splitlines()) if line and not line.startswith("#"))
    assert all(i < first_command for i, line in enumerate(text.splitlines()) if line.startswith("#SBATCH"))
    assert {"job-name", "time", "output"} <= set(options)
    if "array" in options:
        low, high = map(int, re.fullmatch(r"(\d+)-(\d+)", options["array"]).groups())
        assert low == 0 and int(re.search(r"^SHARDS=(\d+)$", text, re.M).group(1)) == high + 1
        assert '--shard "$SLURM_ARRAY_TASK_ID/$SHARDS"' in text
    gpu = options.get("gres") == "gpu:1"
    assert gpu == ("gpu" in path.name)
    if gpu:  # CPU and CUDA checks, and never a shard graded on the CPU alone for want of a GPU
        guard, grade = text.index("torch.cuda.is_available()"), text.index("lumen-grade batch")
        assert guard < grade and "--device auto" in text
    elif "lumen-grade batch" in text:
        assert "--device cpu" in text
