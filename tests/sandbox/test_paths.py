"""Nothing of the class or the kit is reachable by path: a child that reads every command line and
environment in /proc finds no path of the class folder, of a classmate's copies or of the kit, and
the kit's folder it learns from its own stack is not there in its root. As root and as an
unprivileged user (`setpriv`), each skipped with the reason where the kernel offers no namespace."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT
from grader.course import batch
from grader.sandbox import containment
from test_containment import NEEDS_KERNEL, _as_nobody

pytestmark = pytest.mark.privileges  # root: CLONE_NEWPID; a user: a user namespace of its own

# a classmate's grader, started the worst way: the class folder and the classmate's copy on its
# command line and in its environment (as any process of the grading user may have them: the batch
# itself, an editor, a shell); it keeps a child serving the classmate's file until told to stop
CLASSMATE = textwrap.dedent("""
    import os, sys, time
    from grader.sandbox.judge import Launcher, Child, load_request
    launcher = Launcher()
    launcher.start()
    child = Child(launcher, os.path.join(sys.argv[2], "child.log"), time.monotonic() + 600, None, readable=(sys.argv[3],))
    child.request(load_request(sys.argv[3], "exercise3_scaling"))
    print("ready", flush=True)
    sys.stdin.read()
    child.stop()
    launcher.close()
""")
# mallory's grader, started as `batch` starts one: no path on its command line, its job folder as
# its working folder; her file's calls report what her child found
MALLORY = textwrap.dedent("""
    import json, time
    from grader.sandbox import rules
    from grader.sandbox.judge import Launcher, Child, load_request
    audit, rules.Guard._audit = rules.Guard._audit, lambda self, event, args: None
    launcher = Launcher()
    launcher.start()  # the rules' hook off in the zygote: what is left is the kernel's doing
    rules.Guard._audit = audit
    child = Child(launcher, "child.log", time.monotonic() + 120, None, readable=("submission/exercise3_scaling.py",))
    child.request(load_request("submission/exercise3_scaling.py", "exercise3_scaling"))
    found = child.request({"op": "call", "target": "probe", "args": [], "kwargs": {}})["value"]
    with open(f"/proc/{child.pid}/status") as status:  # the judge's pid of the child, and the child's own
        found["nspid"] = next(line.split()[1:] for line in status if line.startswith("NSpid:"))
    child.stop()
    launcher.close()
    print(json.dumps({"found": found, "containment": launcher.containment}))
""")
PROBE = textwrap.dedent('''
    import os, sys

    def probe():
        """Every command line and environment this process can read, the kit's folders its own
        stack names, and what chmod does to them."""
        texts = []
        for pid in os.listdir("/proc"):
            for name in ("cmdline", "environ"):
                try:
                    with open(f"/proc/{pid}/{name}", "rb") as file:
                        texts.append(file.read().decode(errors="replace"))
                except OSError:
                    pass
        frame, kit = sys._getframe(), set()
        while frame is not None:
            if os.sep + "grader" + os.sep in frame.f_code.co_filename:
                kit.add(frame.f_code.co_filename.rsplit(os.sep + "grader" + os.sep, 1)[0])
            frame = frame.f_back
        changed = {}
        for folder in kit:
            try:
                os.chmod(os.path.join(folder, "grader"), 0)
                changed[folder] = "changed"
            except OSError as error:
                changed[folder] = error.strerror
        with open("/proc/self/status") as status:
            capabilities = [line.split()[1] for line in status if line.startswith(("CapEff", "CapPrm"))]
        return {"texts": texts, "kit": sorted(kit), "capabilities": capabilities, "kit in view": [os.path.exists(os.path.join(k, "grader")) for k in kit],
                "chmod": changed, "pid": os.getpid()}
''')


def scenario(folder):
    """Mallory's child probing while a classmate's grader and child run: (its findings, its
    containment, the secrets it must not find)."""
    folder = Path(folder)
    secret = folder / "class-folder-of-the-course"
    alice, mallory = secret / "alice", folder / "mallory-job"
    for path in (alice, mallory / "submission"):
        path.mkdir(parents=True)
    (alice / "exercise3_scaling.py").write_text((ROOT / "solutions" / "exercise3_scaling.py").read_text())
    (mallory / "submission" / "exercise3_scaling.py").write_text(PROBE)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LUMEN_CLASS": str(secret)}
    classmate = subprocess.Popen([sys.executable, "-c", CLASSMATE, str(secret), str(alice), str(alice / "exercise3_scaling.py")],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert classmate.stdout.readline().strip() == "ready"
        done = subprocess.run([sys.executable, "-c", MALLORY], cwd=mallory, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
    finally:
        classmate.communicate("", timeout=60)
    result = json.loads(done.stdout.splitlines()[-1])
    # the kit's trees, not the folder holding them (which may hold the interpreter, as here)
    return result["found"], result["containment"], [str(secret), str(alice), *containment.kit_secrets()]


def _check(found, level, secrets):
    assert level["level"] == containment.KERNEL and "pid-namespace" in level["layers"], level
    leaks = [secret for secret in secrets if any(secret in text for text in found["texts"])]
    assert not leaks, leaks
    assert found["capabilities"] == ["0" * 16] * 2  # none, even in its own user namespace
    assert found["kit"] == [str(ROOT)]  # its stack does name the kit's folder ...
    assert found["kit in view"] == [False]  # ... whose files are not there in its root
    assert found["chmod"][str(ROOT)] != "changed"
    assert (ROOT / "grader").stat().st_mode & 0o777 and os.access(ROOT / "grader", os.R_OK)
    # the judge names the child by its pid in the judge's namespace (its CPU clock, its CPU)
    assert found["nspid"][-1] == str(found["pid"]) and len(found["nspid"]) > 1, found["nspid"]


@NEEDS_KERNEL
@pytest.mark.skipif(os.geteuid() != 0, reason="this user's run is the test below (a root run starts it as 65534)")
def test_as_root_a_child_learns_no_path_of_the_class_or_the_kit(tmp_path):
    _check(*scenario(tmp_path))


@NEEDS_KERNEL
def test_as_an_unprivileged_user_a_child_learns_no_path_of_the_class_or_the_kit(tmp_path_factory):
    prefix, reason = _as_nobody()
    if prefix is None:
        pytest.skip(reason)
    if not containment.user_namespaces():
        pytest.skip("this user may not make a user namespace here: grading runs at level 'process'")
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"lumen-paths-{os.getpid()}"  # a folder 65534 can reach
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    try:
        code = ("import glob, json, sys;"
                "sys.path[:0] = [sys.argv[1], sys.argv[1] + '/tests', *glob.glob(sys.argv[1] + '/tests/*/')];"
                "from test_paths import scenario;"
                "print(json.dumps(scenario(sys.argv[2])))")
        done = subprocess.run([*prefix, sys.executable, "-c", code, str(ROOT), str(folder)], capture_output=True,
                              text=True, timeout=300, cwd=folder, env={**os.environ, "TMPDIR": str(folder)})
        assert done.returncode == 0, done.stderr
        _check(*json.loads(done.stdout.splitlines()[-1]))
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def test_a_batch_starts_its_graders_with_no_path_on_their_command_lines(tmp_path, monkeypatch):
    """Each student's grader: no absolute path among its arguments, its job folder (named at random,
    in the run's 0700 folder) as its working folder."""
    started = []

    class Recorded:
        def __init__(self, command, **options):
            started.append((command, options))
            self.stdout, self.pid = None, None

    student = tmp_path / "class" / "alice"
    student.mkdir(parents=True)
    (student / "exercise3_scaling.py").write_text("")
    jobs = Path(batch.tempfile.mkdtemp(prefix="lumen-batch-"))
    monkeypatch.setattr(batch.subprocess, "Popen", Recorded)
    monkeypatch.setattr(batch.threading, "Thread", lambda **options: type("T", (), {"start": lambda self: None})())
    job = batch._Job(batch.Student("alice", student), batch.Settings(), str(jobs))
    try:
        job.start()
        (command, options), = started
        assert not [word for word in command[1:] if os.path.isabs(word) or str(tmp_path) in word], command
        assert Path(options["cwd"]).parent == jobs and (jobs.stat().st_mode & 0o777) == 0o700
        assert (Path(options["cwd"]) / command[command.index("--submission") + 1] / "exercise3_scaling.py").is_file()
    finally:
        if job.stderr is not None:
            job.stderr.close()
        batch.files.remove_tree(jobs)
