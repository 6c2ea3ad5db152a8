#!/usr/bin/env python3
"""Rerun attack9's attacks against the Lumen attention kit, as root and as uid 65534.

    python3 run.py [ids...]          e.g. python3 run.py a03 a14

$LUMEN_KIT: the kit's checkout (default /work/scratch-attack9); $LUMEN_PY: its venv's python
(default $LUMEN_KIT/.venv-u/bin/python, a venv on /usr/bin/python3 that uid 65534 can run, else
$LUMEN_KIT/.venv/bin/python). Run as root, each attack runs twice: as root, and as uid 65534 through
setpriv (env -i, HOME=/tmp/u65534). Each verdict is decided from the grader's JSON reports, its exit
status and stderr, and filesystem/process checks -- never by eye. Prints one line per attack per
privilege level: HELD or BROKEN, with the evidence.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = HERE / "files"
KIT = Path(os.environ.get("LUMEN_KIT", "/work/scratch-attack9"))
_default_py = KIT / ".venv-u/bin/python"
PY = os.environ.get("LUMEN_PY") or str(_default_py if _default_py.exists() else KIT / ".venv/bin/python")
NOBODY = 65534
UHOME = "/tmp/u65534"
EX3 = "exercise3_scaling"
BOOT = "import sys; from grader.cli.main import main; sys.argv[0] = 'lumen-grade'; sys.exit(main())"


# -- running the grader -----------------------------------------------------------------------------

class Run:
    """One grader run: its exit status, stdout+stderr, wall time, peak RSS (of the process tree),
    and whether its private TMPDIR was left empty and no process of it survived."""

    def __init__(self, rc, out, wall, maxrss_kib, leftovers):
        self.rc, self.out, self.wall, self.maxrss, self.leftovers = rc, out, wall, maxrss_kib, leftovers

    @property
    def traceback(self):
        return "Traceback (most recent call last)" in self.out


def grade(args, who, workdir, timeout=900):
    """Run `lumen-grade ARGS` as `who` ("root" or "nobody") with cwd and a private TMPDIR in
    workdir; returns a Run."""
    tmp = Path(workdir, "tmpdir")
    tmp.mkdir(exist_ok=True)
    os.chmod(tmp, 0o777)
    tag = str(workdir)
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp), "LANG": "C.UTF-8"}
    if who == "root":
        cmd = [PY, "-c", BOOT, *args]
        env["HOME"] = os.environ.get("HOME", "/root")
    else:
        os.makedirs(UHOME, exist_ok=True)
        os.chown(UHOME, NOBODY, NOBODY)
        cmd = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "env", "-i",
               f"HOME={UHOME}", "PATH=/usr/bin:/bin", f"TMPDIR={tmp}", "LANG=C.UTF-8", PY, "-c", BOOT, *args]
    log = Path(workdir, f"log-{time.monotonic_ns()}.txt")
    started = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=workdir, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(proc.pid, 9)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
    wall = time.monotonic() - started
    rc = os.waitstatus_to_exitcode(status)
    time.sleep(0.3)
    leftovers = []
    left_tmp = [p.name for p in tmp.iterdir()] if tmp.exists() else []
    if left_tmp:
        leftovers.append(f"TMPDIR not empty: {left_tmp[:5]}")
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                cmdline = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                cwd = os.readlink(f"/proc/{p}/cwd")
            except OSError:
                continue
            if tag in cmdline or cwd.startswith(tag):
                leftovers.append(f"process {p} survived: {cmdline[:120]}")
    return Run(rc, log.read_text(errors="replace"), wall, usage.ru_maxrss, leftovers)


def student_folder(root, files):
    """A student folder: the kit's stubs (exercises/), with `files` {name: source path or bytes} on top."""
    folder = Path(root)
    shutil.copytree(KIT / "exercises", folder, ignore=shutil.ignore_patterns("notebooks", "__pycache__"))
    for name, source in files.items():
        data = source if isinstance(source, bytes) else Path(source).read_bytes()
        Path(folder, name).write_bytes(data)
    return folder


def only_files(root, files):
    """A student folder holding only `files` {name: path or bytes}."""
    folder = Path(root)
    folder.mkdir(parents=True)
    for name, source in files.items():
        Path(folder, name).write_bytes(source if isinstance(source, bytes) else Path(source).read_bytes())
    return folder


def open_up(path):
    subprocess.run(["chmod", "-R", "a+rwX", str(path)], check=False)


def load_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        return None


def outputs(report):
    return "\n".join((e.get("output") or "") for e in (report or {}).get("exercises", []))


def breaks_in(report):
    return [line for line in outputs(report).splitlines() if line.startswith("BREAK")]


def common(run, report, expect_report=True):
    """Problems any run must not show: a grader traceback, an odd exit status, no report, a
    containment level other than kernel, leftovers."""
    problems = []
    if run.traceback:
        problems.append("grader traceback: " + run.out[run.out.index("Traceback"):][:300].replace("\n", " | "))
    if run.rc not in (0, 1):
        problems.append(f"grader exit status {run.rc}")
    if expect_report and report is None:
        problems.append("no readable JSON report")
    if report is not None and report.get("containment") not in (None, "kernel"):
        problems.append(f"containment {report.get('containment')}")
    problems += run.leftovers
    return problems


def single(work, who, files, exercise="exercise3", perf=False, extra=(), fmt="json"):
    """Grade one student folder (the stubs with `files` on top) with `lumen-grade EXERCISE`."""
    folder = student_folder(Path(work, "student"), files)
    open_up(work)
    out = Path(work, f"report.{fmt}")
    args = [exercise, "--submission", str(folder), "--format", fmt, "--output", str(out), *extra]
    if not perf:
        args.append("--no-perf")
    run = grade(args, who, work)
    return run, out


def verdict(problems, evidence):
    return ("BROKEN" if problems else "HELD"), ("; ".join(problems) if problems else evidence)


# -- the attacks --------------------------------------------------------------------------------------

def probe_attack(filename, perf=False):
    def attack(work, who):
        run, out = single(work, who, {f"{EX3}.py": FILES / filename}, perf=perf)
        report = load_json(out)
        problems = common(run, report) + breaks_in(report)
        import re
        counts = [int(n) for n in re.findall(r"held: (\d+) probes refused", outputs(report))]
        held_lines = sum(counts)
        if not counts:
            problems.append("the probe's summary line is missing from the report")
        score = report and report["score"]
        if report and score != 19.0:
            problems.append(f"the probe's honest code scored {score}/19 (the probe did not run through)")
        return verdict(problems, f"{held_lines} probes refused, 0 BREAK lines, 19/19, level "
                                 f"{report and report['containment']} {report and report['containment_layers']}")
    return attack


def a01(work, who):
    run, out = single(work, who, {f"{EX3}.py": FILES / "a01_cuda_device_reply.py"})
    report = load_json(out)
    problems = common(run, report)
    if report and report["score"] > 1.0:
        problems.append(f"forged replies earned {report['score']}/19")
    msgs = {t["message"][:60] for e in (report or {}).get("exercises", []) for t in e["tests"] if t.get("message")}
    return verdict(problems, f"grader survived (rc {run.rc}); the forged reply is the test's own failure: "
                             f"{sorted(m for m in msgs if 'CUDA' in m)[:1]}; score {report and report['score']}")


def a02(work, who):
    problems, seen = [], []
    for fmt in ("json", "junit", "text"):
        sub = Path(work, fmt)
        sub.mkdir()
        run, out = single(sub, who, {f"{EX3}.py": FILES / "a02_report_bad_unicode.py"}, fmt=fmt)
        problems += [f"{fmt}: {p}" for p in common(run, None, expect_report=False)]
        if not out.exists():
            problems.append(f"{fmt}: no report written")
            continue
        try:
            if fmt == "json":
                json.loads(out.read_text(encoding="utf-8"))
            elif fmt == "junit":
                ET.parse(out)
            else:
                out.read_text(encoding="utf-8")
            seen.append(fmt)
        except Exception as error:  # an unreadable report is the break
            problems.append(f"{fmt} report unreadable: {type(error).__name__}: {error}")
    return verdict(problems, f"reports written and parsed: {seen} (surrogates replaced, no escape survived)")


def a08(work, who):
    shm_before = set(os.listdir("/dev/shm"))
    run, out = single(work, who, {f"{EX3}.py": FILES / "a08_leftovers.py"})
    report = load_json(out)
    problems = common(run, report)
    new_shm = [n for n in set(os.listdir("/dev/shm")) - shm_before if "a9" in n or "lumen" in n]
    if new_shm:
        problems.append(f"/dev/shm entries left: {new_shm}")
    return verdict(problems, f"after the run: TMPDIR empty, no process of the run alive, score "
                             f"{report and report['score']}; child saw: "
                             f"{' / '.join(l for l in outputs(report).splitlines() if 'full' in l or 'fds' in l)}")


def a11(work, who):
    run, out = single(work, who, {f"{EX3}.py": FILES / "a11_nan_answers.py"})
    report = load_json(out)
    problems = common(run, report)
    passed = [t["name"] for e in (report or {}).get("exercises", []) for t in e["tests"] if t["status"] == "passed"]
    value_passes = [n for n in passed if "inputs_not_modified" not in n]
    if value_passes:
        problems.append(f"NaN/inf answers passed {value_passes}")
    return verdict(problems, f"only {passed} passed (NaN/inf answers fail every value test), score "
                             f"{report and report['score']}/19")


def _batch(work, who, students, extra=(), timeout=900):
    """Grade a class folder {student: {file: source}} with `lumen-grade batch`; (run, rows, class dir)."""
    klass = Path(work, "class")
    for student, files in students.items():
        only_files(klass / student, files)
    open_up(work)
    out = Path(work, "grades.csv")
    run = grade(["batch", str(klass), "--out", str(out), *extra], who, work, timeout=timeout)
    rows = {}
    if out.exists():
        import csv
        rows = {row["student"]: row for row in csv.DictReader(out.open())}
    return run, rows, klass


def _digest(folder):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def a09(work, who):
    hog = {Path(stub).name: FILES / "a09_hog.py" for stub in sorted((KIT / "exercises").glob("exercise*.py"))}
    alice = {f"{EX3}.py": KIT / "solutions" / f"{EX3}.py",
             "exercise5_softmax.py": KIT / "solutions" / "exercise5_softmax.py"}
    run, rows, _ = _batch(work, who, {"alice": alice, "mallory": hog}, ["--jobs", "2", "--timeout", "20"])
    problems = [p for p in common(run, None, expect_report=False)]
    row = rows.get("alice")
    if not row:
        problems.append("no row for alice")
    else:
        if row["exercise3"] != "19" or row["exercise5"] != "39":
            problems.append(f"alice's scores changed: exercise3 {row['exercise3']}, exercise5 {row['exercise5']}")
        if row["tier"].count("on par") != 2:
            problems.append(f"alice's tiers changed: {row['tier']!r}")
    return verdict(problems, f"alice (graded beside 8 GIL-free burner threads per child of mallory's): "
                             f"{row and row['total']} points, tiers {row and row['tier']!r}; "
                             f"mallory {rows.get('mallory', {}).get('total')}")


def a10(work, who):
    alice = {f"{EX3}.py": KIT / "solutions" / f"{EX3}.py"}
    mallory = {f"{EX3}.py": FILES / "a10_batch_classmates.py"}
    klass = Path(work, "class")
    run, rows, klass = _batch(work, who, {"alice": alice, "mallory": mallory}, ["--no-perf", "--timeout", "20"])
    problems = common(run, None, expect_report=False)
    before = {"exercise3_scaling.py": hashlib.sha256(Path(alice[f"{EX3}.py"]).read_bytes()).hexdigest()}
    if _digest(klass / "alice") != before:
        problems.append(f"alice's folder changed: {_digest(klass / 'alice')}")
    if (rows.get("alice") or {}).get("total") != "19":
        problems.append(f"alice's row: {rows.get('alice')}")
    mreport = load_json(Path(work, "grades", "mallory.json"))
    mreport = (mreport or {}).get("report")
    problems += breaks_in(mreport)
    if not mreport or "probes refused" not in outputs(mreport):
        problems.append("mallory's probe output not found in her report (the probe did not run)")
    extra = sorted(p.name for p in klass.rglob("*") if "a9_" in p.name)
    if extra:
        problems.append(f"files made in the class folder: {extra}")
    import re
    held = sum(int(n) for n in re.findall(r"held: (\d+) probes refused", outputs(mreport)))
    return verdict(problems, f"alice 19/19, her folder byte for byte; mallory's {held} probes all refused")


def a12(work, who):
    deep = ("[" * 200000 + "]" * 200000).encode()
    bad = json.dumps({"cells": [{"cell_type": "code", "source": {"x": 1}, "metadata": {}},
                                {"cell_type": "code", "source": ["import os\n", 5, None]},
                                {"cell_type": {"a": []}, "source": "x"}], "nbformat": "4",
                      "metadata": None}).encode()
    huge = json.dumps({"cells": [{"cell_type": "code", "source": "#" + "\U0001F600" * 2_000_000}],
                       "nbformat": 4, "nbformat_minor": 5, "metadata": {}}).encode()
    students = {"alice": {f"{EX3}.py": KIT / "solutions" / f"{EX3}.py"},
                "nbdeep": {f"{EX3}.ipynb": deep}, "nbbad": {f"{EX3}.ipynb": FILES / "a12_badcells.ipynb"},
                "nbhuge": {f"{EX3}.ipynb": huge},
                "nbnul": {f"{EX3}.ipynb": b'{"cells":[{"cell_type":"code","source":"\\u0000\\ud800"}],"nbformat":4}'}}
    run, rows, _ = _batch(work, who, students, ["--no-perf", "--timeout", "20"])
    problems = common(run, None, expect_report=False)
    if (rows.get("alice") or {}).get("total") != "19":
        problems.append(f"alice's row: {rows.get('alice')}")
    missing = [s for s in students if s not in rows]
    if missing:
        problems.append(f"no row for {missing}")
    return verdict(problems, "every hostile notebook is that student's own row: " +
                   ", ".join(f"{s}={rows[s]['status']}" for s in students if s in rows))


def a13(work, who):
    problems, scores = [], []
    source = (FILES / "a13_fuzz_returns.py").read_text()
    for offset in (0, 1, 2, 3):
        sub = Path(work, f"off{offset}")
        sub.mkdir()
        text = source.replace("OFFSET = 0", f"OFFSET = {offset}").encode()
        files = {Path(stub).name: text for stub in sorted((KIT / "exercises").glob("exercise*.py"))}
        folder = student_folder(sub / "student", files)
        open_up(sub)
        out = sub / "report.json"
        run = grade(["all", "--submission", str(folder), "--format", "json", "--output", str(out), "--no-perf"],
                    who, sub)
        report = load_json(out)
        problems += [f"offset {offset}: {p}" for p in common(run, report)]
        scores.append(report and report["score"])
    return verdict(problems, f"the judge survived every odd value (4 cycles x 10 exercises), scores {scores} "
                             "(see a14 for why they are not 0)")


def a14(work, who):
    files = {Path(stub).name: FILES / "a14_do_nothing.py" for stub in sorted((KIT / "exercises").glob("exercise*.py"))}
    folder = student_folder(Path(work, "student"), files)
    stubs = Path(work, "stubs")
    shutil.copytree(KIT / "exercises", stubs, ignore=shutil.ignore_patterns("notebooks"))
    open_up(work)
    out, base = Path(work, "report.json"), Path(work, "stubs.json")
    run = grade(["all", "--submission", str(folder), "--format", "json", "--output", str(out), "--no-perf"], who, work)
    run0 = grade(["all", "--submission", str(stubs), "--format", "json", "--output", str(base), "--no-perf"], who, work)
    report, stub_report = load_json(out), load_json(base)
    problems = common(run, report) + common(run0, stub_report)
    gained = {}
    if report and stub_report:
        for e in report["exercises"]:
            passed = [t["name"] for t in e["tests"] if t["status"] == "passed"]
            if e["score"] > 0:
                gained[e["id"]] = (e["score"], passed)
        if report["score"] > stub_report["score"]:
            problems.append(f"code that computes nothing (zeros) scored {report['score']}/{report['max_score']} where "
                            f"the stubs score {stub_report['score']}: " +
                            "; ".join(f"{k} {v[0]:g} ({', '.join(v[1])})" for k, v in gained.items()))
    return verdict(problems, f"zeros scored {report and report['score']}, as the stubs")


def a15(work, who):
    students = {"alice": {f"{EX3}.py": KIT / "solutions" / f"{EX3}.py"},
                "mallory": {f"{EX3}.py": FILES / "a15_html_injection.py"}}
    run, rows, _ = _batch(work, who, students, ["--no-perf", "--timeout", "20", "--feedback", str(Path(work, "fb")),
                                                "--class-report"])
    problems = common(run, None, expect_report=False)
    pages = list(Path(work).rglob("*.html"))
    for page in pages:
        text = page.read_text(errors="replace")
        for needle in ('<script>alert("a9")', "<img src=x onerror", '<a href="javascript:'):
            if needle in text:
                problems.append(f"{page.name}: raw {needle!r}")
    if not pages:
        problems.append("no HTML page written")
    if not any("A9X&lt;" in page.read_text(errors="replace") for page in pages):
        problems.append("the payload is not in any page (the attack did not reach them)")
    return verdict(problems, f"payload shown escaped in {[p.name for p in pages]}")


def a16(work, who):
    run, out = single(work, who, {f"{EX3}.py": FILES / "a16_perf_reference_child.py"}, perf=True)
    report = load_json(out)
    problems = common(run, report) + breaks_in(report)
    tier = ((report or {}).get("exercises") or [{}])[0].get("tier") or {}
    if "differently" in (tier.get("message") or ""):
        problems.append("the timing child reached the reference's child: " + tier["message"][:200])
    if report and report["score"] != 19.0:
        problems.append(f"score {report['score']}")
    return verdict(problems, f"tier {tier.get('id')!r}: the reference's child was not readable, traceable or "
                             "signalable from the timing child")


_BASELINE = {}


def a17(work, who):
    base = Path(work, "base")
    base.mkdir()
    key = who
    if key not in _BASELINE:
        run0, out0 = single(base, who, {f"{EX3}.py": KIT / "solutions" / f"{EX3}.py"})
        _BASELINE[key] = (run0.maxrss, run0.wall)
    rss0, wall0 = _BASELINE[key]
    run, out = single(work, who, {f"{EX3}.py": FILES / "a17_judge_memory.py"})
    report = load_json(out)
    problems = common(run, report)
    grown = (run.maxrss - rss0) / 1024
    evidence = (f"judge peak RSS {run.maxrss / 1024:.0f} MiB (honest run {rss0 / 1024:.0f} MiB, +{grown:.0f} MiB), "
                f"wall {run.wall:.1f} s (honest {wall0:.1f} s) from replies the child spends ~16 MiB of writes on")
    if grown > 1024:  # more than a quarter of what the child itself may hold (--memory-limit 4 GiB)
        problems.append(f"memory amplification: {evidence}")
    if report and report["score"] > 0:
        problems.append(f"score {report['score']}")
    return verdict(problems, evidence)


def a18(work, who):
    klass = {"A1": {f"{EX3}.py": KIT / "solutions" / f"{EX3}.py"},
             "Alice Liddell": {f"{EX3}.py": FILES / "a14_do_nothing.py"}}
    roster = Path(work, "roster.csv")
    roster.write_text("student_id,name,email\nA1,Alice Liddell,alice@x.edu\nM2,Mallory,mallory@x.edu\n")
    run, rows, _ = _batch(work, who, klass, ["--no-perf", "--timeout", "20", "--roster", str(roster)])
    problems = [p for p in common(run, None, expect_report=False) if "exit status 2" not in p]
    a1 = rows.get("A1")
    if a1 and a1.get("total") != "19":
        problems.append(f"alice's row took the impostor's grade: {a1}")
    refused = "two folders belong to student A1" in run.out
    if not refused and not a1:
        problems.append("neither refused nor graded")
    return verdict(problems, "batch refuses the class up front, naming both folders (usage error, exit 2)"
                   if refused else f"alice's row {a1}")


def a19(work, who):
    root = Path(work, "autograder")
    only_files(root / "submission", {f"{EX3}.py": FILES / "a19_hidden_checks_printed.py"})
    open_up(work)
    boot = f"from grader.course.gradescope import run; run({str(root)!r}, no_perf=True)"
    tmp = Path(work, "tmpdir")
    tmp.mkdir()
    os.chmod(tmp, 0o777)
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp), "HOME": UHOME if who == "nobody" else "/root"}
    cmd = [PY, "-c", boot]
    if who == "nobody":
        cmd = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "env", "-i",
               *(f"{k}={v}" for k, v in env.items()), *cmd]
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    stdout = proc.stdout + proc.stderr
    results = load_json(root / "results" / "results.json") or {}
    hidden = [t["name"] for t in results.get("tests", []) if t["name"].startswith("exercise3")
              and t.get("visibility") != "visible"]
    leaked = [line for line in stdout.splitlines() if line.startswith("A9CALL") and "min=10000" in line]
    problems = []
    if "Traceback" in stdout:
        problems.append("grader traceback")
    if hidden and leaked and results.get("stdout_visibility") == "visible":
        problems.append(f"hidden check {hidden} is {results['tests'][[t['name'] for t in results['tests']].index(hidden[0])]['visibility']}, "
                        f"but stdout (stdout_visibility {results['stdout_visibility']!r}) shows its inputs: {leaked[0]!r}")
    return verdict(problems, f"hidden checks {hidden}; stdout_visibility {results.get('stdout_visibility')!r}; "
                             f"leaked lines {len(leaked)}")


def a20(work, who):
    scores = {}
    for name in ("a20_control_whole_matrix", "a20_forge_allocation_probe"):
        sub = Path(work, name)
        sub.mkdir()
        run, out = single(sub, who, {"exercise10_tiled_attention.py": FILES / f"{name}.py"}, exercise="exercise10")
        report = load_json(out)
        problems = common(run, report)
        if problems:
            return verdict([f"{name}: {p}" for p in problems], "")
        test = next(t for t in report["exercises"][0]["tests"] if "never_holds_the_whole_matrix" in t["name"])
        scores[name] = (report["score"], test["status"])
    control, forged = scores["a20_control_whole_matrix"], scores["a20_forge_allocation_probe"]
    problems = []
    if forged[0] > control[0] or forged[1] == "passed":
        problems.append(f"whole-matrix tiled_attention: honest {control[0]:g}/48 (memory test {control[1]}), with the "
                        f"probe's reply forged {forged[0]:g}/48 (memory test {forged[1]})")
    return verdict(problems, f"control {control}, forged {forged}")


def a21(work, who):
    scores = {}
    for name in ("a21_control_device_ignored", "a21_forge_stand_in_device"):
        sub = Path(work, name)
        sub.mkdir()
        run, out = single(sub, who, {"exercise4_masking.py": FILES / f"{name}.py"}, exercise="exercise4")
        report = load_json(out)
        problems = common(run, report)
        if problems:
            return verdict([f"{name}: {p}" for p in problems], "")
        test = next(t for t in report["exercises"][0]["tests"] if "cpu-causal_mask" in t["name"])
        scores[name] = (report["score"], test["status"])
    control, forged = scores["a21_control_device_ignored"], scores["a21_forge_stand_in_device"]
    problems = []
    if forged[0] > control[0] or forged[1] == "passed":
        problems.append(f"causal_mask that ignores its device: honest {control[0]:g}/25 (device test {control[1]}), "
                        f"with the child's 'placed' list forged {forged[0]:g}/25 (device test {forged[1]})")
    return verdict(problems, f"control {control}, forged {forged}")


def a22(work, who):
    nb = json.dumps({"cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": [],
                                "execution_count": None}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}).encode()
    klass = Path(work, "class")
    only_files(klass / "alice", {f"{EX3}.py": KIT / "solutions" / f"{EX3}.py"})
    mallory = os.fsencode(klass / "mallory")
    odd_dir = mallory + b"/deep\n[2/2] alice: 0/302 (error)\x1b[2J\x1b]0;pwn\x07"
    os.makedirs(odd_dir)
    Path(os.fsdecode(odd_dir + b"/" + EX3.encode() + b".py")).write_bytes((KIT / "solutions" / f"{EX3}.py").read_bytes())
    with open(mallory + b"/exercise3_\x1b[31mred\xff\xfe\x07.ipynb", "wb") as fh:
        fh.write(nb)
    with open(mallory + "/exercise5_softmax\u202e.ipynb".encode(), "wb") as fh:
        fh.write(nb)
    open_up(work)
    out = Path(work, "grades.csv")
    run = grade(["batch", str(klass), "--out", str(out), "--no-perf", "--timeout", "20", "--feedback",
                 str(Path(work, "fb"))], who, work)
    problems = common(run, None, expect_report=False)
    outputs_ = [Path(work, "grades.csv"), *Path(work, "grades").glob("*.json"), *Path(work, "fb").glob("*.html")]
    for path in outputs_:
        data = path.read_bytes() if path.exists() else b""
        for name, needle in (("ESC", b"\x1b"), ("BEL", b"\x07"), ("RLO", "\u202e".encode())):
            if needle in data:
                problems.append(f"{path.name} holds a raw {name}")
    if b"\x1b" in run.out.encode(errors="replace") or "\n[2/2] alice: 0/302" in run.out:
        problems.append("the batch's own output carries the student's escapes or fake line")
    import csv
    rows = {row["student"]: row for row in csv.DictReader(out.open())} if out.exists() else {}
    if (rows.get("alice") or {}).get("total") != "19":
        problems.append(f"alice's row: {rows.get('alice')}")
    return verdict(problems, f"names cleaned everywhere ({len(outputs_)} files checked); alice 19, mallory "
                             f"{(rows.get('mallory') or {}).get('total')}")


ATTACKS = {
    "a01": ("forged reply: a tensor on 'cuda' on a CPU-only torch (AssertionError in decode)", a01),
    "a02": ("reports poisoned with lone surrogates, U+FFFE/U+FFFF, U+2028, XML breakers", a02),
    "a03": ("write outside scratch (tmp, home, kit, venv .pth, /sys & /proc submounts, /proc/1/root)",
            probe_attack("a03_fs_write.py")),
    "a04": ("read secrets (kit by path, lumen_ref, /proc/<zygote>/*, shadow, homes) by raw libc open",
            probe_attack("a04_fs_read.py")),
    "a05": ("signals/ptrace/pidfd/process_vm/setpgid/TIOCSTI towards the zygote and others",
            probe_attack("a05_signals_ptrace.py")),
    "a06": ("network and new channels: raw socket() families, connect/sendto/bind on the judge socket, io_uring",
            probe_attack("a06_network.py")),
    "a07": ("exec/fork/namespaces: fork, vfork, clone, clone3, execve(at), unshare, setns, seccomp, mount, setuid...",
            probe_attack("a07_exec_fork_ns.py")),
    "a08": ("leave things behind: SIGTERM-proof non-daemon thread, full scratch, 1020 fds, big log", a08),
    "a09": ("batch: CPU burner threads (GIL-free) in every child to knock a classmate's tier", a09),
    "a10": ("batch: a classmate probing alice (write/read/signal probes)", a10),
    "a11": ("NaN / inf answers for value tests", a11),
    "a12": ("batch: hostile notebooks (deep nesting, wrong types, 24 MB, NUL/surrogate)", a12),
    "a13": ("fuzz the judge's comparison/diagnosis with odd return values (every exercise)", a13),
    "a14": ("points for code that computes nothing (zeros) on every exercise", a14),
    "a15": ("HTML/script injection into feedback pages and the class report", a15),
    "a16": ("perf phase: reach the trusted reference child from the timing child", a16),
    "a17": ("judge memory/CPU amplification: 16 MiB headers of empty dicts", a17),
    "a18": ("batch --roster: a folder named after a classmate's roster name", a18),
    "a19": ("Gradescope: hidden checks' inputs printed to the visible stdout before publication", a19),
    "a20": ("forge the in-child allocation probe: 4 points of exercise 10 for whole-matrix code", a20),
    "a21": ("forge the stand-in device verdict ('placed'): a device-careless causal_mask passes", a21),
    "a22": ("batch: file/folder names with newlines, fake progress lines, ANSI/OSC escapes, bad UTF-8, RLO", a22),
}


def main(argv):
    wanted = argv or list(ATTACKS)
    unknown = [a for a in wanted if a not in ATTACKS]
    if unknown:
        sys.exit(f"unknown attack ids: {unknown}; known: {', '.join(ATTACKS)}")
    levels = ["root", "nobody"] if os.geteuid() == 0 else ["user"]
    if os.geteuid() == 0 and subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                                             PY, "-c", "import grader"], capture_output=True).returncode != 0:
        print(f"warning: uid {NOBODY} cannot run {PY} (import grader): use a venv it can read (LUMEN_PY)")
    print(f"kit {KIT}, python {PY}")
    results = []
    for attack_id in wanted:
        title, attack = ATTACKS[attack_id]
        for who in levels:
            work = Path(tempfile.mkdtemp(prefix=f"a9-{attack_id}-{who}-"))
            os.chmod(work, 0o777)
            try:
                result, evidence = attack(work, "root" if who != "nobody" else "nobody")
            except Exception as error:  # the harness's own failure: say so, never as HELD
                result, evidence = "ERROR", f"{type(error).__name__}: {error}"
            finally:
                shutil.rmtree(work, ignore_errors=True)
            label = "uid 65534" if who == "nobody" else who
            print(f"{attack_id} [{label:9}] {result:6} {title}\n      {evidence}", flush=True)
            results.append((attack_id, label, result))
    print("\nsummary:")
    for attack_id in wanted:
        cells = "  ".join(f"{label}: {result}" for a, label, result in results if a == attack_id)
        print(f"  {attack_id}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
