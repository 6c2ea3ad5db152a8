"""The child's confinement by the kernel, checked from inside a child: whatever way it tries, it
reads nothing of the kit but the runtime and its own file, and writes nowhere but its scratch
folder. As root (this machine, CI, Gradescope) and as an unprivileged user (`setpriv`), each
skipped with the reason where the kernel layer is not available."""

import csv
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, names_itself
from grader.sandbox import containment, rules
from grader.grading.settings import DEFAULTS
from grader.sandbox.judge import Launcher, Child, load_request
from test_batch import marked

pytestmark = pytest.mark.privileges  # root: a private mount namespace and uid 65534; a user: Landlock
PROBE = ROOT / "tests" / "hostile" / "escape_probe.py"
OUTCOMES = {  # attempt -> what a confined child gets
    "read the answer key by path": "denied",
    "read the answer key by dir_fd": "denied",
    "read the answer key by hard link": "denied",
    "read the answer key by symlink": "denied",
    "read the hidden suites": "denied",
    "read the solutions": "denied",
    "list the kit": "denied",
    "write beside its own file": "denied",
    "write in /tmp": "denied",
    "write in the kit": "denied",
    "write in its scratch folder": "allowed",
    "read its own file": "allowed",
    "share memory through /dev/zero": "denied",  # not counted by --memory-limit (RLIMIT_DATA)
    "share memory through a file": "denied",
    "write at the root of its file system": "denied",
    "make 20000 empty files in its scratch folder": "denied",  # containment.SCRATCH_FILES
    "reserve 64 GiB of address space": "denied",  # RLIMIT_AS on CPU: page tables are kernel memory
    "hold 2000 open files": "denied",  # child.OPEN_FILES
    "map a file of its scratch folder to run": "denied",  # noexec: no library of the student's (round 49's a02)
}
NEEDS_KERNEL = pytest.mark.skipif(
    sys.platform != "linux" or containment.expected_level() != containment.KERNEL,
    reason="no kernel layer here (not Linux, no Landlock and not root): grading runs at level 'process'")


def escape_attempts(folder):
    """(containment, {attempt: outcome}) of the probe graded from `folder`, in a fresh child whose
    forbidden-shortcut rules are switched off (their audit hook would refuse the answer key's
    files first): what is left is the kernel's doing."""
    folder.mkdir(parents=True, exist_ok=True)
    host = socket.socket(socket.AF_UNIX)  # a socket of the host's network namespace, as another user's server
    name = f"lumen-host-server-{os.getpid()}-{time.monotonic_ns()}"  # abstract: no path, whose length is limited
    host.bind("\0" + name)
    host.listen()
    path = folder / "exercise3_scaling.py"
    path.write_text(PROBE.read_text().replace("@KIT@", str(ROOT)))
    audit, rules.Guard._audit = rules.Guard._audit, lambda self, event, args: None
    launcher = Launcher()
    launcher.start()  # the zygote, and so every child, is forked with the rules' hook switched off
    rules.Guard._audit = audit
    try:
        child = Child(launcher, str(folder / "child.log"), time.monotonic() + 60, DEFAULTS.memory_limit,
                      readable=(str(path),))
        try:
            child.request(load_request(str(path), "exercise3_scaling"))
            outcomes = child.request({"op": "call", "target": "probe", "args": [], "kwargs": {}})["value"]
        finally:
            child.stop()
        outcomes["host socket in view outside"] = "@" + name in _host_unix_sockets()
    finally:
        launcher.close()
        host.close()
    return launcher.containment, outcomes


def _host_unix_sockets():
    with open("/proc/net/unix", encoding="utf-8", errors="replace") as table:
        return [line.split()[7] for line in table.readlines()[1:] if len(line.split()) > 7]


def assert_confined(level, outcomes):
    """Every attempt of the probe's got what OUTCOMES says; in a private root (the mount namespace held)
    every mount is read-only but the scratch, the devices and /proc, sub-mounts too (round 24: /sys's
    cgroup hierarchies were writable under a read-only /sys), and /proc/net lists no unix socket."""
    writable, sockets = outcomes.pop("writable mounts"), outcomes.pop("unix sockets")
    assert outcomes.pop("host socket in view outside")  # what the child must not see was there to see
    assert outcomes == OUTCOMES
    if "mount-namespace" in level["layers"]:
        assert writable == [], writable
        # a network namespace of its own, empty: none of the host's unix sockets (round 27's a02)
        assert "network-namespace" in level["layers"] and sockets == [], (level, sockets)


@NEEDS_KERNEL
def test_a_confined_child_reaches_nothing_but_the_runtime_its_file_and_its_scratch(tmp_path):
    level, outcomes = escape_attempts(tmp_path / "submission")
    assert level["level"] == containment.KERNEL, level
    assert_confined(level, outcomes)
    assert not (tmp_path / "submission" / "x.txt").exists() and not (ROOT / "grader" / "x.py").exists()


def _as_nobody():
    """The command prefix that runs a Python process as an unprivileged user with this interpreter
    and kit readable (uid/gid 65534 from root; none when this process is unprivileged already),
    or a reason why it cannot be done here."""
    if os.geteuid() != 0:
        return [], None
    if not shutil.which("setpriv"):
        return None, "needs setpriv to start an unprivileged process as root"
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    trees = [sys.prefix, sys.base_prefix, str(ROOT)]
    if all(containment._traversable(tree, containment.UNPRIVILEGED) for tree in trees):
        return drop, None
    if not shutil.which("unshare"):
        return None, "this interpreter is not readable by an unprivileged user, and there is no unshare"
    # the interpreter lives where 65534 cannot reach (here, under /root): in a private mount
    # namespace, give it an open folder above it, as a course machine would have
    hidden = next(parent for parent in map(os.path.dirname, [sys.base_prefix])
                  if not containment._traversable(parent, containment.UNPRIVILEGED))
    top = "/" + os.path.relpath(os.path.realpath(sys.base_prefix), "/").split(os.sep)[0]
    # (the original tree is kept reachable on a tmpfs of the namespace's own: nothing is left on the host)
    script = (f"mount --make-rprivate / && mount -t tmpfs -o mode=0700 tmpfs /mnt && mkdir /mnt/top"
              f" && mount --rbind {top} /mnt/top"
              f" && mount -t tmpfs -o mode=0755 tmpfs {top} && mkdir -p {sys.base_prefix}"
              f" && mount --rbind /mnt/top{sys.base_prefix[len(top):]} {sys.base_prefix}"
              f" && exec {' '.join(drop)} \"$@\"")
    del hidden
    return ["unshare", "-m", "sh", "-c", script, "sh"], None


@NEEDS_KERNEL
def test_as_an_unprivileged_user_landlock_confines_the_child(request):
    prefix, reason = _as_nobody()
    if prefix is None:
        pytest.skip(reason)
    if not containment.landlock_abi():
        pytest.skip("no Landlock in this kernel: an unprivileged user gets level 'process'")
    tmp_path = Path(tempfile.mkdtemp(prefix="lumen-nobody-"))  # a folder 65534 can reach
    tmp_path.chmod(0o777)
    request.addfinalizer(lambda: shutil.rmtree(tmp_path, ignore_errors=True))
    code = ("import glob, json, pathlib, sys;"  # the kit, and its tests' folders (they share helpers)
            "sys.path[:0] = [sys.argv[1], sys.argv[1] + '/tests', *glob.glob(sys.argv[1] + '/tests/*/')];"
            "from test_containment import escape_attempts;"
            "print(json.dumps(escape_attempts(pathlib.Path(sys.argv[2]))))")
    done = subprocess.run([*prefix, sys.executable, "-c", code, str(ROOT), str(tmp_path / "submission")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    level, outcomes = json.loads(done.stdout.splitlines()[-1])
    assert level["level"] == containment.KERNEL, level
    assert any(layer.startswith("landlock") for layer in level["layers"]), level
    assert_confined(level, outcomes)


# -- a hostile student in a class -----------------------------------------------------------------


def _class_files(folder):
    return {path.relative_to(folder): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


@NEEDS_KERNEL
def test_a_hostile_student_between_two_honest_ones_touches_nobody(tmp_path):
    """mallory, graded between alice and zoe, rewrites every file she can find from the batch's command
    line (the class folder, the gradebook's folder), forges full-marks records and leaves named pipes
    where files will be opened: alice and zoe still get full marks and their files are byte for byte what
    they handed in; mallory gets what she earned."""
    from click.testing import CliRunner

    from grader.cli.main import main

    solutions = {path.name: path.read_text() for path in (ROOT / "solutions").glob("exercise*.py")}
    folder = tmp_path / "class"
    for name, files in {"alice": solutions, "zoe": solutions,
                        "mallory": {"exercise3_scaling.py": (ROOT / "tests" / "hostile" / "classmates.py").read_text()}
                        }.items():
        (folder / name).mkdir(parents=True)
        for file, text in files.items():
            (folder / name / file).write_text(text)
    before = _class_files(folder)
    out = tmp_path / "grades.csv"
    result = CliRunner().invoke(main, ["batch", str(folder), "--out", str(out), "--jobs", "1", "--no-perf",
                                       "--device", "cpu", "--timeout", "30"])
    assert result.exit_code == 0, result.output
    assert _class_files(folder) == before
    with open(out, newline="") as file:
        rows = {row["student"]: row for row in csv.DictReader(file)}
    for honest in ("alice", "zoe"):
        assert rows[honest]["total"] == rows[honest]["max_score"], rows[honest]  # full marks
        assert rows[honest]["containment"] == "kernel"
        record = json.loads((tmp_path / "grades" / f"{honest}.json").read_text())
        assert record["report"]["score"] == record["report"]["max_score"] > 0 and record["report"]["exercises"]
    assert rows["mallory"]["status"] == "graded" and float(rows["mallory"]["exercise3"]) < 19
    assert not [path for path in tmp_path.rglob("*") if path.is_fifo()]
    # and the resume trusts none of it: a second run finds three valid records and grades nobody
    again = CliRunner().invoke(main, ["batch", str(folder), "--out", str(out), "--no-perf", "--device", "cpu"])
    assert "skipping 3 student(s)" in again.stderr


# -- no orphans -------------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="process names in /proc: Linux")
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_stopping_the_grader_ends_every_child_and_removes_its_folders(tmp_path, stop):
    """A student's child that never finishes importing, and `lumen-grade` told to stop (SIGINT: Ctrl-C,
    even where the grader was started with it ignored, as a script's background job is): it exits at
    once (128 + the signal), its children are gone and so are its temporary folders."""
    marker = f"lumen-o{os.getpid() % 1000}-{stop[3:]}"
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "exercise3_scaling.py").write_text(
        f"import torch\n\n{names_itself(marker)}\nwhile True:\n    pass\n")
    temp = tmp_path / "tmp"
    temp.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "grader", "exercise3", "--submission", str(folder),
                                "--no-perf", "--device", "cpu", "--timeout", "120"],
                               env={**os.environ, "TMPDIR": str(temp)}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    give_up = time.monotonic() + 60
    while not marked(marker):
        assert process.poll() is None and time.monotonic() < give_up, process.communicate()
        time.sleep(0.05)
    process.send_signal(getattr(signal, stop))
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 128 + getattr(signal, stop), stderr
    assert "Traceback" not in stderr
    give_up = time.monotonic() + 5
    while marked(marker) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not marked(marker)
    assert not list(temp.iterdir())


def test_every_students_process_runs_on_one_cpu(grade):
    """The suites' children as the timing's (round 11's a01 told them apart by their affinity)."""
    result = grade(3, source="""
        import os

        def scale_scores(scores, d_k):
            raise ValueError(f"on {len(os.sched_getaffinity(0))} CPU(s)")

        def scaled_scores(q, k):
            raise ValueError(f"on {len(os.sched_getaffinity(0))} CPU(s)")
        """)
    raised = [test.message for test in result.tests if test.status == "error"]
    assert raised and all("on 1 CPU(s)" in message for message in raised), raised
