#!/usr/bin/env python3
"""Run every attack of attacks/ against a Lumen kit, each in a fresh temporary copy, and say per
attack SUCCEEDED (the attack worked), STOPPED (it did not) or INCONCLUSIVE, with one line of
evidence; the results also go to a JSON file.

    python3 run_attacks.py KIT [--only a1,c3,...] [--json FILE] [--as-user 65534] [--keep]

KIT/.venv/bin/lumen-grade is used when present, else `python -m grader` with KIT on PYTHONPATH (the
kit's own .venv/bin/python if there is one, else this interpreter). Nothing here reads the kit's
source: success is judged by what can be observed (the report, the CSV, processes, memory, files).

Safety: every process started for an attack carries LUMEN_ATTACK_TOKEN=<random> in its environment;
after the attack every process whose environment holds that token is killed by pid (the harness
runs as root so it can read them). The kit is fingerprinted before the run and restored from a
pristine copy after any attack that changed it (attacks b2, b3, c5, e4 change it on purpose); new
.pth files in the kit interpreter's site-packages are removed too.
"""

import argparse
import csv
import hashlib
import json
import os
import pwd
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ATTACKS = HERE / "attacks"
DEFAULT_TIMEOUT = 20  # --timeout per exercise given to the grader unless an attack sets its own
HARD_LIMIT = 150  # seconds any single grader command may run before the harness kills it
SKIP_DIRS = {"__pycache__", ".git", ".pytest_cache"}


# -- processes ----------------------------------------------------------------------------------

def token_pids(token, exclude=()):
    """Processes whose environment carries our token (every process an attack started)."""
    found = []
    needle = f"LUMEN_ATTACK_TOKEN={token}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def describe_pid(pid):
    try:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return f"{pid}({comm},{state})"
    except OSError:
        return str(pid)


def kill_token(token, exclude=()):
    pids = token_pids(token, exclude)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return pids


def shmem_kb():
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1])
    return 0


class Run:
    """One command: started, watched (until exit or a limit), its rc, output and peak memory."""

    def __init__(self, argv, cwd, env, limit, user=None, sample_shmem=False, on_start=None):
        self.argv, self.cwd, self.env, self.limit = argv, cwd, env, limit
        if user is not None:
            self.argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *argv]
        self.sample_shmem = sample_shmem
        self.on_start = on_start
        self.rc = None
        self.maxrss_kb = 0
        self.timed_out = False
        self.shmem_peak_kb = 0
        self.seconds = 0.0

    def start(self):
        self.tag = secrets.token_hex(4)
        self.out = open(Path(self.cwd) / f".harness_stdout.{self.tag}", "wb")
        self.err = open(Path(self.cwd) / f".harness_stderr.{self.tag}", "wb")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=self.out, stderr=self.err, start_new_session=True)
        return self

    def poll(self):
        if self.rc is not None:
            return self.rc
        pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        if pid:
            self.rc = os.waitstatus_to_exitcode(status)
            self.proc.returncode = self.rc
            self.maxrss_kb = usage.ru_maxrss
            self.seconds = time.monotonic() - self.started
        return self.rc

    def wait(self, limit=None, base_shmem=0):
        limit = self.limit if limit is None else limit
        while self.poll() is None:
            if self.sample_shmem:
                self.shmem_peak_kb = max(self.shmem_peak_kb, shmem_kb() - base_shmem)
            if time.monotonic() - self.started > limit:
                self.timed_out = True
                return None
            time.sleep(0.1)
        return self.rc

    def kill(self):
        if self.rc is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                os.kill(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.wait(limit=10)

    def close(self):
        for f in (self.out, self.err):
            f.close()

    @property
    def stdout(self):
        return (Path(self.cwd) / f".harness_stdout.{self.tag}").read_bytes().decode(errors="replace")

    @property
    def stderr(self):
        return (Path(self.cwd) / f".harness_stderr.{self.tag}").read_bytes().decode(errors="replace")


# -- the kit ------------------------------------------------------------------------------------

class Kit:
    def __init__(self, root, python=None):
        self.root = Path(root).resolve()
        venv = self.root / ".venv" / "bin"
        self.python = python or (str(venv / "python") if (venv / "python").exists() else sys.executable)
        if python:  # an explicit interpreter: `python -m grader` with the kit on PYTHONPATH
            self.grade, self.pythonpath = [self.python, "-m", "grader"], str(self.root)
        elif (venv / "lumen-grade").exists():
            self.grade, self.pythonpath = [str(venv / "lumen-grade")], None
        else:
            self.grade, self.pythonpath = [self.python, "-m", "grader"], str(self.root)
        self.backup = None
        self.fingerprint = None
        self.site_dirs = self._site_dirs()
        self.site_listing = {d: set(os.listdir(d)) for d in self.site_dirs if os.path.isdir(d)}
        self.bundle = None

    def _site_dirs(self):
        try:
            out = subprocess.run([self.python, "-c", "import site,sys;print('\\n'.join(site.getsitepackages()))"],
                                 capture_output=True, text=True, timeout=60).stdout
            return [line for line in out.splitlines() if line.strip()]
        except (OSError, subprocess.TimeoutExpired):
            return []

    def env(self, token):
        env = dict(os.environ)
        env["LUMEN_ATTACK_TOKEN"] = token
        env.pop("LUMEN_ATTACK_DAEMON", None)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        if self.pythonpath:
            env["PYTHONPATH"] = self.pythonpath + os.pathsep + env.get("PYTHONPATH", "")
        return env

    def _walk(self):
        found = {}
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            for name in names:
                path = Path(folder) / name
                try:
                    st = path.lstat()
                except OSError:
                    continue
                found[str(path.relative_to(self.root))] = (st.st_size, st.st_mtime_ns, st.st_ino)
            for name in dirs:
                path = Path(folder) / name
                found[str(path.relative_to(self.root)) + "/"] = ("dir",)
        return found

    def snapshot(self, into):
        self.backup = Path(into) / "kit-pristine"
        shutil.copytree(self.root, self.backup, symlinks=True, ignore=shutil.ignore_patterns(*SKIP_DIRS))
        self.fingerprint = self._walk()

    def restore(self):
        """Undo whatever an attack changed in the kit; returns the paths it had changed."""
        now = self._walk()
        changed = sorted(k for k in set(now) | set(self.fingerprint) if now.get(k) != self.fingerprint.get(k))
        for rel in changed:
            path, pristine = self.root / rel.rstrip("/"), self.backup / rel.rstrip("/")
            if rel not in self.fingerprint:  # new
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        for rel in changed:
            path, pristine = self.root / rel.rstrip("/"), self.backup / rel.rstrip("/")
            if rel in self.fingerprint and not rel.endswith("/"):
                path.parent.mkdir(parents=True, exist_ok=True)
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                shutil.copy2(pristine, path, follow_symlinks=False)
            elif rel in self.fingerprint and rel.endswith("/"):
                path.mkdir(parents=True, exist_ok=True)
        extra = []
        for d, before in self.site_listing.items():
            for name in set(os.listdir(d)) - before:
                if name.endswith(".pth") or name.startswith("zz_lumen"):
                    Path(d, name).unlink(missing_ok=True)
                    extra.append(f"{d}/{name}")
        self.fingerprint = self._walk()
        return [c for c in changed if "__pycache__" not in c] + extra


# -- evaluation helpers ---------------------------------------------------------------------------

def load_json(path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def tail(text, n=160):
    text = " ".join(text.split())
    return text[-n:]


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return {row["student"]: row for row in csv.DictReader(f)}
    except (OSError, KeyError, csv.Error):
        return None


def crashed(run, report_expected=True, report=None):
    """The judge crashed rather than grading: killed, a Python traceback, or no report."""
    err = run.stderr + run.stdout
    signs = []
    if run.rc is not None and run.rc < 0:
        signs.append(f"killed by signal {-run.rc}")
    if "Traceback (most recent call last)" in err:
        last = [line for line in err.splitlines() if line.strip()][-1:]
        signs.append("traceback: " + tail(" ".join(last), 120))
    if report_expected and report is None and run.rc not in (0, 1):
        signs.append(f"no report, exit status {run.rc}")
    return signs


# -- the attacks ------------------------------------------------------------------------------------

class Harness:
    def __init__(self, kit, user=None, keep=False):
        self.kit, self.user, self.keep = kit, user, keep
        self.top = Path(tempfile.mkdtemp(prefix="lumen-attack-run-"))
        if user is not None:
            os.chown(self.top, user, user)
        self.kit.snapshot(self.top)

    def chown(self, path):
        if self.user is not None:
            for folder, dirs, names in os.walk(path):
                os.chown(folder, self.user, self.user)
                for n in names:
                    os.lchown(os.path.join(folder, n), self.user, self.user)

    def prepare(self, name, spec):
        """A fresh copy of the attack's files in a new temporary folder."""
        work = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.top))
        shutil.copytree(ATTACKS / name, work, dirs_exist_ok=True, ignore=shutil.ignore_patterns("attack.json"))
        for rel, target in spec.get("symlinks", {}).items():
            dest = work / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            src = self.kit.root / target
            if not src.exists():
                raise FileNotFoundError(f"the kit has no {target}")
            dest.symlink_to(src)
        for rel, (source, text) in spec.get("append", {}).items():
            dest = work / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            src = self.kit.root / source
            if not src.exists():
                raise FileNotFoundError(f"the kit has no {source}")
            dest.write_text(src.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")
        for student, what in spec.get("victims", {}).items():
            dest = work / "class" / student
            dest.mkdir(parents=True, exist_ok=True)
            for f in sorted((self.kit.root / what).glob("exercise*.py")):
                shutil.copy(f, dest / f.name)
        (work / "out").mkdir(exist_ok=True)
        self.chown(work)
        return work

    def grader(self, work, token, args, limit=HARD_LIMIT, **kw):
        run = Run(self.kit.grade + args, cwd=str(work), env=self.kit.env(token), limit=limit, user=self.user, **kw)
        return run.start()

    def preflight(self):
        """The grader must grade the kit's own solution of exercise3 here (as the chosen user), or
        no attack result means anything."""
        token = secrets.token_hex(8)
        work = Path(tempfile.mkdtemp(prefix="preflight-", dir=self.top))
        (work / "submission").mkdir()
        (work / "out").mkdir()
        for f in (self.kit.root / "solutions").glob("exercise3_*.py"):
            shutil.copy(f, work / "submission" / f.name)
        self.chown(work)
        run = self.grader(work, token, ["exercise3", "--submission", str(work / "submission"), "--no-perf",
                                        "--device", "cpu", "--format", "json", "--output", str(work / "out" / "r.json")],
                          limit=120)
        run.wait()
        run.kill()
        run.close()
        kill_token(token)
        report = load_json(work / "out" / "r.json")
        if report is None or not isinstance(report.get("score"), (int, float)) or report["score"] <= 0:
            return f"the grader cannot grade the kit's own solution here (status {run.rc}): {tail(run.stderr, 200)}"
        return None

    def run_attack(self, name):
        spec = json.loads((ATTACKS / name / "attack.json").read_text())
        token = secrets.token_hex(8)
        result = {"attack": name, "class": spec["cls"], "description": spec["description"], "mode": spec["mode"]}
        try:
            work = self.prepare(name, spec)
        except FileNotFoundError as error:
            result.update(result="INCONCLUSIVE", evidence=f"setup: {error}")
            return result
        started = time.monotonic()
        try:
            verdict, evidence = getattr(self, "mode_" + spec["mode"])(spec, work, token)
        except Exception as error:  # a harness failure is not a result
            verdict, evidence = "INCONCLUSIVE", f"harness error: {type(error).__name__}: {error}"
        finally:
            strays = kill_token(token)
            changed = self.kit.restore()
        if strays and spec["check"] not in ("orphans_after_signal", "orphans_after_exit", "orphans_or_hang"):
            evidence += f" [killed {len(strays)} leftover process(es)]"
        if changed:
            evidence += f" [kit changed and restored: {', '.join(changed[:4])}{' ...' if len(changed) > 4 else ''}]"
        result.update(result=verdict, evidence=evidence, seconds=round(time.monotonic() - started, 1))
        if not self.keep:
            shutil.rmtree(work, ignore_errors=True)
        return result

    # -- modes ----------------------------------------------------------------------------------

    def _single_args(self, spec, work, submission="submission"):
        args = list(spec["cmd"])
        args += ["--submission", str(work / submission), "--device", "cpu"]
        if "--timeout" not in args:
            args += ["--timeout", str(DEFAULT_TIMEOUT)]
        if not spec.get("text_report"):
            args += ["--output", str(work / "out" / "report.json")]
        return args

    def _timeout_of(self, args):
        return float(args[args.index("--timeout") + 1])

    def mode_single(self, spec, work, token):
        args = self._single_args(spec, work)
        check = spec["check"]
        t = self._timeout_of(args)
        if check == "orphans_after_signal":
            return self.signal_check(spec, work, token, args)
        base = shmem_kb()
        limit = t + 30 if check in ("hang", "orphans_or_hang") else HARD_LIMIT
        run = self.grader(work, token, args, limit=limit, sample_shmem=check == "shared_memory")
        run.wait(base_shmem=base)
        hung = run.timed_out
        alive_grader = [describe_pid(p) for p in token_pids(token)] if hung else []
        run.kill()
        leftovers = [describe_pid(p) for p in token_pids(token)]
        run.close()
        report = load_json(work / "out" / "report.json")
        return self.evaluate(spec, run, report, hung, alive_grader, leftovers, t)

    def mode_single_twice(self, spec, work, token):
        args = self._single_args(spec, work)
        first = self.grader(work, token, args)
        first.wait()
        first.kill()
        first.close()
        # a classmate's honest run of the same exercise afterwards, on the same machine and kit
        exercise = spec["cmd"][0]
        number = exercise.replace("exercise", "")
        honest = work / "classmate"
        honest.mkdir()
        for f in self.kit.root.joinpath("solutions").glob(f"exercise{number}_*.py"):
            shutil.copy(f, honest / f.name)
        self.chown(honest)
        second_args = self._single_args(spec, work, submission="classmate")
        second_args[second_args.index("--output") + 1] = str(work / "out" / "classmate.json")
        second = self.grader(work, token, second_args)
        second.wait()
        second.kill()
        second.close()
        time.sleep(1.0)
        left = [describe_pid(p) for p in token_pids(token)]
        if spec["check"] == "orphans_after_exit":
            if left:
                return "SUCCEEDED", (f"after the classmate's run exited (status {second.rc}) {len(left)} process(es) "
                                     f"it started still ran: {', '.join(left[:3])}")
            return "STOPPED", f"no process outlived the classmate's run (first run status {first.rc}, second {second.rc})"
        return "INCONCLUSIVE", "unknown check"

    def signal_check(self, spec, work, token, args):
        run = self.grader(work, token, args)
        sig = getattr(signal, spec["signal"])
        deadline = time.monotonic() + 25
        seen = []
        while time.monotonic() < deadline and run.poll() is None:  # wait until the student's code sleeps
            seen = [p for p in token_pids(token, exclude={run.proc.pid})
                    if Path(f"/proc/{p}/comm").exists() and "lumenatk" in Path(f"/proc/{p}/comm").read_text()]
            if seen:
                break
            time.sleep(0.2)
        if not seen:
            run.kill()
            run.close()
            return "INCONCLUSIVE", "the student's code never started sleeping (no 'lumenatk' process seen)"
        time.sleep(0.5)
        sent = time.monotonic()
        os.kill(run.proc.pid, sig)
        t = self._timeout_of(args)
        run.wait(limit=(sent - run.started) + t + 20)  # it may finish the exercise first: allow its deadline
        graceful = run.rc is not None
        took = time.monotonic() - sent
        if not graceful:
            left = [describe_pid(p) for p in token_pids(token)]
            run.kill()
            run.close()
            return "SUCCEEDED", (f"lumen-grade ignored {spec['signal']} for {took:.0f} s (--timeout {t:g}); "
                                 f"still running: {', '.join(left[:3])}")
        run.close()
        time.sleep(1.5)
        left = [describe_pid(p) for p in token_pids(token)]
        if left:
            return "SUCCEEDED", (f"lumen-grade exited {took:.1f} s after {spec['signal']} (status {run.rc}); "
                                 f"still running after it: {', '.join(left[:3])}")
        return "STOPPED", (f"lumen-grade exited {took:.1f} s after {spec['signal']} (status {run.rc}) and nothing "
                           f"it started survived")

    def mode_batch(self, spec, work, token, again=False):
        jobs = str(spec.get("jobs", 1))
        args = ["batch", str(work / "class"), "--out", str(work / "grades.csv"), "--jobs", jobs,
                "--timeout", str(DEFAULT_TIMEOUT), "--no-perf", "--device", "cpu"]
        victims = {s: {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in (work / "class" / s).glob("*.py")}
                   for s in spec.get("victims", {})}
        check = spec["check"]
        limit = 90 if check == "batch_hang" else HARD_LIMIT
        run = self.grader(work, token, args, limit=limit)
        run.wait()
        hung = run.timed_out
        state = describe_pid(run.proc.pid) if hung else ""
        run.kill()
        run.close()
        first = run
        if spec.get("resume"):
            run2 = self.grader(work, token, args)
            run2.wait()
            run2.kill()
            run2.close()
            run = run2
        rows = read_csv(work / "grades.csv") or {}
        changed_files = [f"{s}/{n}" for s, files in victims.items() for n, h in files.items()
                         if not (work / "class" / s / n).exists()
                         or hashlib.sha256((work / "class" / s / n).read_bytes()).hexdigest() != h]
        att = rows.get("aaa_attacker")

        def row_text(r):
            return f"{r['student']}: status={r['status']} total={r['total']}/{r['max_score']}" if r else "no row"

        if check == "batch_hang":
            if hung:
                return "SUCCEEDED", f"batch still running after {limit} s, process {state} (T = stopped); rows: {len(rows)}"
            return "STOPPED", f"batch finished (status {run.rc}) in {run.seconds:.0f} s; {row_text(att)}"
        if check == "batch_attacker_forged":
            if att and att["total"] not in ("", "0") and float(att["total"]) > 0:
                return "SUCCEEDED", f"a file with no solution got {row_text(att)} in grades.csv (batch status {run.rc})"
            return "STOPPED", f"{row_text(att)} (batch status {run.rc})"
        if check == "batch_resume_forged":
            crash = "traceback" if "Traceback" in first.stderr else f"status {first.rc}"
            if att and att["total"] not in ("", "0") and float(att["total"]) > 0:
                return "SUCCEEDED", (f"first batch run: {crash} ({tail(first.stderr, 90)}); after resuming: "
                                     f"{row_text(att)} with no solution")
            return "STOPPED", f"first run {crash}; after resume {row_text(att)}"
        if check == "batch_victim_changed":
            bad = [row_text(r) for s, r in rows.items() if s in victims
                   and (r["status"] != "graded" or r["total"] != r["max_score"])]
            missing = [s for s in victims if s not in rows]
            if bad or changed_files:
                return "SUCCEEDED", ("victim (honest full solution) got " + "; ".join(bad or ["full marks"])
                                     + (f"; its files changed: {', '.join(changed_files[:3])}" if changed_files else "")
                                     + f" (batch status {run.rc})")
            if missing:
                return "INCONCLUSIVE", f"no row for {missing}; batch status {run.rc}: {tail(run.stderr)}"
            return "STOPPED", "victim: " + "; ".join(row_text(rows[s]) for s in victims) + f" (batch status {run.rc})"
        return "INCONCLUSIVE", "unknown check"

    def ensure_bundle(self, token):
        if self.kit.bundle is not None:
            return self.kit.bundle
        folder = self.top / "bundle"
        folder.mkdir(exist_ok=True)
        self.chown(folder)
        run = Run(self.kit.grade + ["gradescope-bundle", "--out", str(folder / "autograder.zip"), "--no-perf",
                                    "--timeout", str(DEFAULT_TIMEOUT)],
                  cwd=str(folder), env=self.kit.env(token), limit=120, user=self.user).start()
        run.wait()
        run.kill()
        run.close()
        self.kit.bundle = folder / "autograder.zip" if (folder / "autograder.zip").exists() else False
        return self.kit.bundle

    def mode_gradescope(self, spec, work, token):
        bundle = self.ensure_bundle(token)
        if not bundle:
            return "INCONCLUSIVE", "gradescope-bundle could not be built with this kit"
        root = work / "ag"
        (root / "source").mkdir(parents=True)
        shutil.unpack_archive(str(bundle), str(root / "source"), "zip")
        os.chmod(root / "source" / "run_autograder", 0o755)
        shutil.copytree(work / "submission", root / "submission")
        (root / "results").mkdir()
        self.chown(root)
        env = self.kit.env(token)
        env.update(LUMEN_AUTOGRADER_ROOT=str(root), LUMEN_PYTHON=self.kit.python)
        if self.kit.pythonpath is None:
            env.pop("PYTHONPATH", None)
        run = Run(["bash", str(root / "source" / "run_autograder")], cwd=str(root), env=env, limit=HARD_LIMIT,
                  user=self.user).start()
        run.wait()
        run.kill()
        run.close()
        results = load_json(root / "results" / "results.json")
        if results is None:
            p = root / "results" / "results.json"
            kind = "a directory" if p.is_dir() else ("missing" if not p.exists() else "not JSON")
            return ("SUCCEEDED" if spec["check"] == "gradescope_grader_failure" else "STOPPED",
                    f"results.json is {kind} (run_autograder status {run.rc})")
        score = results.get("score")
        if spec["check"] == "forged_gradescope":
            if isinstance(score, (int, float)) and score > 0:
                return "SUCCEEDED", (f"results.json says score {score} for a file with no solution "
                                     f"(output: {tail(str(results.get('output', '')), 60)!r})")
            return "STOPPED", f"results.json score {score}: {tail(str(results.get('output', '')), 100)}"
        if spec["check"] == "gradescope_grader_failure":
            out = str(results.get("output", ""))
            if "autograder itself failed" in out or "grader error" in json.dumps(results):
                return "SUCCEEDED", f"student sees a grader failure, score {score}: {tail(out, 120)}"
            return "STOPPED", f"graded normally: score {score}, {len(results.get('tests', []))} tests"
        return "INCONCLUSIVE", "unknown check"

    # -- checks of a single run ---------------------------------------------------------------------

    def evaluate(self, spec, run, report, hung, alive, leftovers, t):
        check = spec["check"]
        status = f"exit status {run.rc}" if not hung else "still running"
        if check == "hang":
            if hung:
                return "SUCCEEDED", f"the grader was still running {t + 30:.0f} s after start (--timeout {t:g}): {', '.join(alive[:3])}"
            return "STOPPED", f"finished in {run.seconds:.1f} s ({status}); {self.summary(report)}"
        if check == "orphans_or_hang":
            if hung:
                return "SUCCEEDED", f"still running after --timeout {t:g} + 30 s: {', '.join(alive[:3])}"
            if leftovers:
                return "SUCCEEDED", f"after the grader exited, still running: {', '.join(leftovers[:3])}"
            return "STOPPED", f"finished in {run.seconds:.1f} s ({status}), nothing left behind; {self.summary(report)}"
        if hung:
            return "INCONCLUSIVE", f"the grader hung past {HARD_LIMIT} s"
        if check == "forged_output":
            if report and isinstance(report.get("score"), (int, float)) and report["score"] > 0:
                return "SUCCEEDED", (f"--output report says {report['score']}/{report.get('max_score')} for a file with "
                                     f"no solution ({status}; grader said: {tail(run.stdout + run.stderr, 90)})")
            return "STOPPED", f"{status}; {self.summary(report)}"
        if check == "full_marks":
            ex = self.exercise(report, spec["exercise"])
            if ex and ex["max_score"] and ex["score"] == ex["max_score"]:
                return "SUCCEEDED", f"{spec['exercise']} {ex['score']:g}/{ex['max_score']:g}: full marks ({status})"
            return "STOPPED", f"{status}; {self.summary(report, spec.get('exercise'))}"
        if check == "tier_on_par":
            ex = self.exercise(report, spec["exercise"])
            tier = (ex or {}).get("tier") or {}
            if tier.get("id") == "on-par" and ex["score"] == ex["max_score"]:
                return "SUCCEEDED", (f"{spec['exercise']} {ex['score']:g}/{ex['max_score']:g}, tier {tier.get('id')} "
                                     f"ratio {tier.get('ratio')} (honest loop code is ~30x)")
            return "STOPPED", (f"{status}; tier {tier.get('id')} ratio {tier.get('ratio')}; "
                               f"{self.summary(report, spec.get('exercise'))}")
        if check == "judge_crash":
            signs = crashed(run, report_expected=not spec.get("text_report"), report=report)
            if signs:
                return "SUCCEEDED", f"judge crashed: {'; '.join(signs)}"
            return "STOPPED", f"{status}; {self.summary(report)}"
        if check == "grader_error":
            messages = [t["message"] for e in (report or {}).get("exercises", []) for t in e.get("tests", [])]
            errors = [m for m in messages if "grader error" in m]
            signs = crashed(run, report=report)
            if errors:
                return "SUCCEEDED", f"{len(errors)} test(s) report a grader error: {tail(errors[0], 120)}"
            if signs:
                return "SUCCEEDED", f"judge crashed: {'; '.join(signs)}"
            return "STOPPED", f"{status}; {self.summary(report)}"
        if check == "shared_memory":
            peak_mb = run.shmem_peak_kb / 1024
            printed = " ".join(e.get("output", "") for e in (report or {}).get("exercises", []))
            if peak_mb >= 0.9 * spec["shm_bytes"] / (1 << 20) or "SHARED_BYTES_TOUCHED" in printed:
                return "SUCCEEDED", (f"under --memory-limit 256M the child held {peak_mb:.0f} MiB of shared memory "
                                     f"(system Shmem peak); printed: {tail(printed, 60)!r}")
            return "STOPPED", f"Shmem peak {peak_mb:.0f} MiB; printed: {tail(printed, 80)!r}"
        if check == "judge_memory":
            mb = run.maxrss_kb / 1024
            if run.maxrss_kb > spec["rss_over"]:
                return "SUCCEEDED", f"the grader's peak RSS was {mb:.0f} MiB from a 32 MiB reply ({status}; {self.summary(report)})"
            return "STOPPED", f"grader peak RSS {mb:.0f} MiB ({status}); {self.summary(report)}"
        if check == "junit_wellformed":
            path = Path(run.cwd) / "out" / "report.json"  # the --output file (junit despite the name)
            try:
                ET.fromstring(path.read_bytes())
            except FileNotFoundError:
                signs = crashed(run, report_expected=False)
                return ("SUCCEEDED" if signs else "STOPPED"), f"no JUnit file ({status}) {'; '.join(signs)}"
            except ET.ParseError as error:
                return "SUCCEEDED", f"the JUnit report is not well-formed XML: {error}"
            return "STOPPED", f"well-formed JUnit XML ({status})"
        return "INCONCLUSIVE", f"unknown check {check}"

    @staticmethod
    def exercise(report, exercise_id):
        for ex in (report or {}).get("exercises", []):
            if ex.get("id") == exercise_id:
                return ex
        return None

    @staticmethod
    def summary(report, exercise_id=None):
        if report is None:
            return "no report"
        exs = [e for e in report.get("exercises", []) if exercise_id in (None, e.get("id"))]
        first = next((t for e in exs for t in e.get("tests", []) if t.get("status") not in ("passed", "skipped")), None)
        text = f"score {report.get('score')}/{report.get('max_score')}"
        if first:
            text += f"; first failure: {tail(first.get('message', ''), 110)}"
        return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kit", help="the kit's folder (holding grader/, lumen_ref/, solutions/)")
    parser.add_argument("--only", help="comma-separated attack names or prefixes (e.g. a1,c,f7)")
    parser.add_argument("--json", default=str(HERE / "results.json"), help="where to write the results")
    parser.add_argument("--as-user", type=int, help="run the grader as this uid/gid (setpriv), e.g. 65534")
    parser.add_argument("--keep", action="store_true", help="keep each attack's temporary folder")
    parser.add_argument("--python", help="run `PYTHON -m grader` (kit on PYTHONPATH) instead of the kit's lumen-grade")
    options = parser.parse_args()
    if os.geteuid() != 0:
        print("note: not root: processes of another user cannot be inspected or killed", file=sys.stderr)
    names = sorted(p.name for p in ATTACKS.iterdir() if (p / "attack.json").exists())
    if options.only:
        wanted = [w.strip() for w in options.only.split(",") if w.strip()]
        names = [n for n in names if any(n == w or n.startswith(w) for w in wanted)]
    kit = Kit(options.kit, python=options.python)
    harness = Harness(kit, user=options.as_user, keep=options.keep)
    print(f"kit {kit.root} via {' '.join(kit.grade)}; {len(names)} attack(s); "
          f"grader as {'uid ' + str(options.as_user) if options.as_user is not None else pwd.getpwuid(os.geteuid()).pw_name}",
          flush=True)
    results = []
    problem = harness.preflight()
    if problem:
        print(f"preflight failed: {problem}", flush=True)
    try:
        for name in names:
            if problem:
                spec = json.loads((ATTACKS / name / "attack.json").read_text())
                result = {"attack": name, "class": spec["cls"], "description": spec["description"],
                          "mode": spec["mode"], "result": "INCONCLUSIVE", "evidence": "preflight: " + problem}
            else:
                result = harness.run_attack(name)
            results.append(result)
            print(f"{result['result']:<12} {name:<40} [{result['class']}] {result['evidence']}", flush=True)
            Path(options.json).write_text(json.dumps({"kit": str(kit.root), "as_user": options.as_user,
                                                      "results": results}, indent=2))
    finally:
        kit.restore()
        if not options.keep:
            shutil.rmtree(harness.top, ignore_errors=True)
    counts = {}
    for r in results:
        counts[r["result"]] = counts.get(r["result"], 0) + 1
    print("summary: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f"; results in {options.json}")


if __name__ == "__main__":
    main()
