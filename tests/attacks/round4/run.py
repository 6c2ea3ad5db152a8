#!/usr/bin/env python3
"""Round-4 attacks on the Lumen attention kit.

    python3 run.py KIT PYTHON --user-python PY [--mode root|user|both] [--only a02,a04]

KIT: the kit's checkout; PYTHON: an interpreter with the kit installed (root runs);
--user-python: one uid 65534 can run (user runs, via setpriv).  Every run gets a fresh TMPDIR;
after it, whatever is left in that TMPDIR is reported as junk.  Each attack prints one line per
privilege level: BROKEN or HELD, decided from what was observed outside the kit (memory counters
of the machine, process RSS, file table, files, exit codes, scores in the report file), not from
the kit's own words.  Run as root (it drops to 65534 itself for the user runs).
"""

import argparse
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
UID = 65534
MIB = 1 << 20


# -- measuring -----------------------------------------------------------------------------------

def meminfo():
    out = {}
    for line in open("/proc/meminfo"):
        key, value = line.split(":")
        out[key] = int(value.split()[0]) * 1024
    return out


def file_nr():
    return int(open("/proc/sys/fs/file-nr").read().split()[0])


def descendants(root):
    """pids under `root` (itself included), from /proc's ppid links."""
    parent = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = open(f"/proc/{name}/stat").read()
                parent[int(name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = {root}, [root]
    while frontier:
        p = frontier.pop()
        for child, ppid in parent.items():
            if ppid == p and child not in found:
                found.add(child)
                frontier.append(child)
    return found


def proc_rss_cpu(pid):
    try:
        rss = 0
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return rss, cpu
    except (OSError, ValueError, IndexError):
        return 0, 0.0


class Monitor(threading.Thread):
    """Samples, while a run lasts: the machine's page tables, slab and file table (their rise over
    the start), and the largest RSS and CPU time of any one process under the run."""

    def __init__(self, root_pid):
        super().__init__(daemon=True)
        self.root_pid, self.stop_flag = root_pid, False
        base = meminfo()
        self.base = {"PageTables": base["PageTables"], "Slab": base["Slab"], "files": file_nr()}
        self.peak = {"PageTables": 0, "Slab": 0, "files": 0, "rss": 0, "cpu": 0.0}

    def run(self):
        while not self.stop_flag:
            m = meminfo()
            self.peak["PageTables"] = max(self.peak["PageTables"], m["PageTables"] - self.base["PageTables"])
            self.peak["Slab"] = max(self.peak["Slab"], m["Slab"] - self.base["Slab"])
            self.peak["files"] = max(self.peak["files"], file_nr() - self.base["files"])
            for pid in descendants(self.root_pid):
                rss, cpu = proc_rss_cpu(pid)
                self.peak["rss"] = max(self.peak["rss"], rss)
                self.peak["cpu"] = max(self.peak["cpu"], cpu)
            time.sleep(0.1)


# -- running the kit -----------------------------------------------------------------------------

class Ctx:
    def __init__(self, kit, python, user_python, mode, work):
        self.kit, self.mode, self.work = Path(kit), mode, work
        self.python = user_python if mode == "user" else python
        bindir = Path(self.python).parent
        self.lumen = str(bindir / "lumen-grade")

    def fresh(self, name):
        """A fresh folder (owned by the run's user) for one attack's files and TMPDIR."""
        base = self.work / f"{name}-{self.mode}"
        if base.exists():
            subprocess.run(["rm", "-rf", str(base)])
        (base / "tmp").mkdir(parents=True)
        (base / "home").mkdir()
        return base

    def own(self, path):
        if self.mode == "user":
            subprocess.run(["chown", "-R", f"{UID}:{UID}", str(path)])
        subprocess.run(["chmod", "-R", "a+rX", str(path)])

    def grade(self, args, base, timeout=300, nofile=None, cwd=None, extra_env=None):
        """Run lumen-grade ARGS with TMPDIR=base/tmp; returns (rc, output, monitor peaks, junk)."""
        self.own(base)
        env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(base / "tmp"), "HOME": str(base / "home"),
               "LANG": "C.UTF-8", "NO_COLOR": "1", **(extra_env or {})}
        limits = "ulimit -u 3000; " + (f"ulimit -n {nofile}; " if nofile else "")
        inner = " ".join(["exec", "timeout", "-k", "5", str(timeout), self.lumen, *map(str, args)])
        if self.mode == "user":
            inner = f"exec setpriv --reuid {UID} --regid {UID} --clear-groups " + inner.removeprefix("exec ")
        proc = subprocess.Popen(["bash", "-c", limits + inner], env=env, cwd=str(cwd or base),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        mon = Monitor(proc.pid)
        mon.start()
        try:
            out, _ = proc.communicate(timeout=timeout + 30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        mon.stop_flag = True
        mon.join()
        junk = sorted(os.listdir(base / "tmp"))
        return proc.returncode, out.decode(errors="replace"), mon.peak, junk


def report_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def level_of(rep):
    return (rep or {}).get("containment", "?")


def exercise(rep, eid="exercise3"):
    for e in (rep or {}).get("exercises", []):
        if e.get("id") == eid:
            return e
    return {}


def junk_note(junk):
    return f"; junk left in TMPDIR: {junk}" if junk else ""


# -- the attacks ---------------------------------------------------------------------------------
# each: (ctx) -> (broken: bool, kit_said: str, happened: str)

def a01_gc_answer_key(ctx):
    """Use the answer key's functions left in the zygote's memory (gc), no solution of our own."""
    base = ctx.fresh("a01")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a01_gc_answer_key", "--no-perf",
                                     "--format", "json", "--output", base / "r.json"], base)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    found = [l for l in (e.get("output") or "").splitlines() if l.startswith("ATTACK")]
    broken = (e.get("score") or 0) > 0
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')}", \
        f"answer-key objects found in the child: {found}{junk_note(junk)}"


def a02_growsdown_memory(ctx):
    """MAP_GROWSDOWN mappings are not counted by RLIMIT_DATA: 1 GiB under --memory-limit 256M."""
    base = ctx.fresh("a02")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a02_growsdown_memory", "--no-perf",
                                     "--memory-limit", "256M", "--format", "json", "--output", base / "r.json"], base)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    broken = peak["rss"] > 700 * MIB
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')} (no memory-limit failure)" if e.get("passed") \
        else f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')}", \
        f"largest RSS of one process of the run: {peak['rss'] // MIB} MiB with --memory-limit 256M{junk_note(junk)}"


def a03_deep_ast_class_report(ctx):
    """A file that compiles in the child but is too deep for the class report's ast.parse."""
    base = ctx.fresh("a03")
    src = (HERE / "a03_deep_ast_class_report" / "exercise3_scaling.py").read_text()
    for n in (2925, 2930, 2933, 2934):
        folder = base / "class" / f"s{n}"
        folder.mkdir(parents=True)
        (folder / "exercise3_scaling.py").write_text(src.replace(".b" * 2925, ".b" * n))
    honest = base / "class" / "alice"
    honest.mkdir()
    shutil.copy(ctx.kit / "solutions" / "exercise3_scaling.py", honest)
    rc, out, peak, junk = ctx.grade(["batch", base / "class", "--out", base / "grades.csv", "--no-perf",
                                     "--class-report", "--timeout", "30"], base, cwd=ctx.kit)
    made = all((base / name).exists() for name in ("class-report.html", "class-report.json"))
    broken = rc not in (0, 1) or not made or "Traceback" in out
    return broken, f"rc {rc}: {out.strip().splitlines()[-1][:120] if out.strip() else ''}", \
        f"class report written: {made}{junk_note(junk)}"


def a04_pagetable_kmem(ctx):
    """Page tables of a huge read-only mapping: kernel memory no limit counts."""
    base = ctx.fresh("a04")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a04_pagetable_kmem", "--no-perf",
                                     "--memory-limit", "256M", "--format", "json", "--output", base / "r.json"], base)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    broken = peak["PageTables"] > 300 * MIB
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')}", \
        f"machine's page tables rose by {peak['PageTables'] // MIB} MiB (--memory-limit 256M){junk_note(junk)}"


def a05_fd_kmem(ctx):
    """RLIMIT_NOFILE is never lowered: with Docker's default (1048576) a child holds ~1M open files."""
    base = ctx.fresh("a05")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a05_fd_kmem", "--no-perf",
                                     "--memory-limit", "256M", "--format", "json", "--output", base / "r.json"],
                                    base, nofile=1048576)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    broken = peak["files"] > 500_000 or peak["Slab"] > 256 * MIB
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')}", \
        f"machine's open-file table rose by {peak['files']}, slab by {peak['Slab'] // MIB} MiB " \
        f"(fs.file-max {open('/proc/sys/fs/file-max').read().strip()}){junk_note(junk)}"


def a06_perf_cache(ctx):
    """Cache answers so that timed calls are free: a 100x-slow loop timed as on par?"""
    base = ctx.fresh("a06")
    tiers = {}
    for variant in ("control", "attack"):
        rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a06_perf_cache" / variant,
                                         "--perf-points", "10", "--device", "cpu", "--format", "json",
                                         "--output", base / f"{variant}.json"], base)
        e = exercise(report_json(base / f"{variant}.json"))
        tiers[variant] = (e.get("score"), (e.get("tier") or {}).get("id") if isinstance(e.get("tier"), dict) else e.get("tier"))
    broken = (tiers["attack"][0] or 0) > (tiers["control"][0] or 0) + 0.01
    return broken, f"control {tiers['control']}, attack {tiers['attack']}", \
        "score with the cache vs the honest slow loop" + junk_note(junk)


def a07_recon(ctx):
    """In a batch: can a child learn a classmate's name, the class folder or the batch's folders?"""
    base = ctx.fresh("a07")
    (base / "class" / "mallory").mkdir(parents=True)
    (base / "class" / "carol_zq7x").mkdir(parents=True)
    shutil.copy(HERE / "a07_recon" / "exercise3_scaling.py", base / "class" / "mallory")
    shutil.copy(ctx.kit / "solutions" / "exercise3_scaling.py", base / "class" / "carol_zq7x")
    rc, out, peak, junk = ctx.grade(["batch", base / "class", "--out", base / "grades.csv", "--no-perf",
                                     "--timeout", "30", "-j", "2"], base)
    rec = report_json(base / "grades" / "mallory.json") or {}
    recon = exercise(rec.get("report") or {}).get("output") or ""
    leaks = [w for w in ("carol_zq7x", str(base / "class"), "lumen-batch-") if w in recon]
    env_refused = recon.count("environ:E")
    broken = "carol_zq7x" in recon or str(base / "class") in recon
    return broken, f"rc {rc}; mallory's row: {next((l for l in (base / 'grades.csv').read_text().splitlines() if l.startswith('mallory')), '?')}", \
        f"names found in what the child read: {leaks or 'none'}; environ refused {env_refused}x; " \
        f"child saw: {recon[:900]!r}{junk_note(junk)}"


def _uid_procs():
    n = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == UID:
                    n += 1
            except OSError:
                pass
    return n


def a08_cpu_threads(ctx):
    """63 spinning threads: CPU time far beyond the (wall-clock) limit; all of it gone afterwards?"""
    base = ctx.fresh("a08")
    before = _uid_procs()
    started = time.monotonic()
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a08_cpu_threads", "--no-perf",
                                     "--timeout", "6", "--total-timeout", "20", "--format", "json",
                                     "--output", base / "r.json"], base, timeout=120)
    wall = time.monotonic() - started
    for _ in range(10):  # 64 threads take a moment to be reaped
        time.sleep(0.5)
        survivors = _uid_procs() - before
        if survivors <= 0:
            break
    rep = report_json(base / "r.json")
    e = exercise(rep)
    broken = peak["cpu"] > 1.5 * 6 or survivors > 0
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')} error={str(e.get('error'))[:80]}", \
        f"one process used {peak['cpu']:.1f} s of CPU under --timeout 6 ({wall:.0f} s wall); " \
        f"processes of uid {UID} left: {survivors}{junk_note(junk)}"


def a09_net_probe(ctx):
    """TCP on 127.0.0.1, a path and an abstract Unix socket, listened to outside."""
    import socket
    base = ctx.fresh("a09")
    hits = []
    listeners = []
    tcp = socket.socket(); tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", 47123)); listeners.append(("tcp", tcp))
    path = "/tmp/r4-probe.sock"
    if os.path.exists(path):
        os.unlink(path)
    pu = socket.socket(socket.AF_UNIX); pu.bind(path); os.chmod(path, 0o777); listeners.append(("path", pu))
    ab = socket.socket(socket.AF_UNIX); ab.bind(b"\0r4-abstract-probe"); listeners.append(("abstract", ab))
    for name, s in listeners:
        s.listen(8); s.settimeout(0.2)
    stop = []

    def accept():
        while not stop:
            for name, s in listeners:
                try:
                    c, _ = s.accept(); hits.append(name); c.close()
                except OSError:
                    pass
    t = threading.Thread(target=accept, daemon=True); t.start()
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a09_net_probe", "--no-perf",
                                     "--format", "json", "--output", base / "r.json"], base)
    stop.append(1); t.join()
    for _, s in listeners:
        s.close()
    os.unlink(path)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    tried = [l for l in (e.get("output") or "").splitlines() if "ATTACK-NET" in l]
    return bool(hits), f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')}", \
        f"connections the listeners accepted: {hits or 'none'}; the child's tries: {tried[0][:600] if tried else '?'}{junk_note(junk)}"


def a10_negative_dentries(ctx):
    """Negative dentries from stat() of paths that do not exist: kernel memory no limit counts."""
    base = ctx.fresh("a10")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a10_negative_dentries", "--no-perf",
                                     "--memory-limit", "256M", "--timeout", "60", "--format", "json",
                                     "--output", base / "r.json"], base)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    said = [l for l in (e.get("output") or "").splitlines() if "ATTACK" in l]
    broken = peak["Slab"] > 256 * MIB
    subprocess.run(["sh", "-c", "sync; echo 2 > /proc/sys/vm/drop_caches"])  # clean up: drop the dentries
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')}", \
        f"machine's slab rose by {peak['Slab'] // MIB} MiB (--memory-limit 256M); child: {said}{junk_note(junk)}"


def a11_syscall_sweep(ctx):
    """Every call number off the allowlist, raw; and the calls that make kernel objects."""
    base = ctx.fresh("a11")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a11_syscall_sweep", "--no-perf",
                                     "--format", "json", "--output", base / "r.json"], base)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    said = next((l for l in (e.get("output") or "").splitlines() if "ATTACK-SWEEP" in l), "?")
    broken = said == "?" or "reached []" not in said or "made {}" not in said
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')}", f"child: {said[:700]}{junk_note(junk)}"


def a12_odd_bytes(ctx):
    """A BOM, invalid UTF-8, a UTF-8 surrogate, terminal escapes, a 512 KiB line: every report format and the class report."""
    base = ctx.fresh("a12")
    source = (HERE / "a12_odd_bytes" / "exercise3_scaling.py").read_bytes()  # kept small in the repository
    (base / "src").mkdir()
    (base / "src" / "exercise3_scaling.py").write_bytes(source.replace(b"# @LONG_LINE@", b"# " + b"A" * 524288, 1))
    os.chmod(base / "src", 0o755)
    results = []
    for fmt in ("text", "junit", "html", "gradescope", "json"):
        rc, out, peak, junk = ctx.grade(["exercise3", "--submission", base / "src", "--no-perf",
                                         "--format", fmt, "--output", base / f"r.{fmt}"], base)
        results.append((fmt, rc, "Traceback" in out, (base / f"r.{fmt}").exists()))
    (base / "class" / "odd").mkdir(parents=True)
    shutil.copy(base / "src" / "exercise3_scaling.py", base / "class" / "odd")
    (base / "class" / "alice").mkdir()
    shutil.copy(ctx.kit / "solutions" / "exercise3_scaling.py", base / "class" / "alice")
    rc, out, peak, junk = ctx.grade(["batch", base / "class", "--out", base / "grades.csv", "--no-perf",
                                     "--class-report", "--timeout", "30"], base, cwd=ctx.kit)
    results.append(("batch+class-report", rc, "Traceback" in out, (base / "class-report.json").exists()))
    alice = next((l for l in (base / "grades.csv").read_text().splitlines() if l.startswith("alice")), "") \
        if (base / "grades.csv").exists() else ""
    broken = any(rc not in (0, 1) or tb or not made for _, rc, tb, made in results) or ",19," not in alice
    return broken, "; ".join(f"{f} rc {rc}" for f, rc, _, _ in results), \
        f"(format, rc, traceback, file written): {results}; alice: {alice}{junk_note(junk)}"


def a13_sigstop_self(ctx):
    """SIGSTOP itself mid-call, signals blocked, a thread spinning: the deadline must still end it."""
    base = ctx.fresh("a13")
    before = _uid_procs()
    started = time.monotonic()
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a13_sigstop_self", "--no-perf",
                                     "--timeout", "5", "--total-timeout", "30", "--format", "json",
                                     "--output", base / "r.json"], base, timeout=120)
    wall = time.monotonic() - started
    for _ in range(10):
        time.sleep(0.5)
        survivors = _uid_procs() - before
        if survivors <= 0:
            break
    rep = report_json(base / "r.json")
    e = exercise(rep)
    broken = rep is None or wall > 60 or survivors > 0
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')} rc {rc}", \
        f"the run took {wall:.0f} s (limits 5 s per exercise, 30 s in all); processes left: {survivors}{junk_note(junk)}"


def a14_forged_cuda_reply(ctx):
    """Write a forged reply on the inherited socket: a tensor on "cuda" (AssertionError on CPU torch, which wire.decode does not list)."""
    base = ctx.fresh("a14")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a14_forged_cuda_reply", "--no-perf",
                                     "--format", "json", "--output", base / "r.json"], base)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    broken = rep is None or rc not in (0, 1) or "Traceback" in out or (e.get("score") or 0) > 0 or bool(junk)
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')} rc {rc}", \
        f"grader exited {rc}, traceback: {'Traceback' in out}{junk_note(junk)}"


def a15_html_injection(ctx):
    """Markup in printed output, an exception message and a docstring: escaped on the HTML feedback page?"""
    base = ctx.fresh("a15")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a15_html_injection", "--no-perf",
                                     "--format", "html", "--output", base / "r.html"], base)
    page = (base / "r.html").read_text(errors="replace") if (base / "r.html").exists() else ""
    raw = [m for m in ("<script>window.R4XSS", "<script>R4MSG", "<svg onload=R4SVG", '<img src=x onerror="R4XSS', "<script>R4DOC")
           if m in page]
    return bool(raw) or not page, f"rc {rc}, page of {len(page)} bytes", \
        f"student markup left unescaped in the page: {raw or 'none'}{junk_note(junk)}"


def _tier_of(csv_path, student):
    if not csv_path.exists():
        return "?"
    for line in csv_path.read_text().splitlines():
        if line.startswith(student + ","):
            return line.split(",")[-3] or "(none)"
    return "?"


def a16_perf_interference(ctx):
    """Spinning threads in one student's children spoil the tier of the classmate timed beside them."""
    base = ctx.fresh("a16")
    tiers = {}
    for variant in ("control", "attack"):
        klass = base / variant / "class"
        (klass / "aaron_spinner").mkdir(parents=True)
        (klass / "bella_honest").mkdir(parents=True)
        shutil.copy(HERE / "a16_perf_interference" / variant / "exercise3_scaling.py", klass / "aaron_spinner")
        shutil.copy(ctx.kit / "solutions" / "exercise3_scaling.py", klass / "bella_honest")
        rc, out, peak, junk = ctx.grade(["batch", klass, "--out", base / variant / "grades.csv", "-j", "2",
                                         "--timeout", "60"], base, timeout=600)
        rec = report_json(base / variant / "grades" / "bella_honest.json") or {}
        e = exercise(rec.get("report") or {})
        tier = e.get("tier") or {}
        tiers[variant] = (e.get("score"), tier.get("id"), (tier.get("message") or tier.get("name") or "")[:90])
    broken = tiers["attack"][1] != tiers["control"][1]
    return broken, f"bella's tier: control {tiers['control']}, with the spinner beside her {tiers['attack']}", \
        "bella (honest) graded next to aaron, who spins 63 threads" + junk_note(junk)


def a17_skip_tests(ctx):
    """Raise pytest's Skipped / unittest's SkipTest: do the tests drop out of the maximum?"""
    base = ctx.fresh("a17")
    rc, out, peak, junk = ctx.grade(["exercise3", "--submission", HERE / "a17_skip_tests", "--no-perf",
                                     "--format", "json", "--output", base / "r.json"], base)
    rep = report_json(base / "r.json")
    e = exercise(rep)
    statuses = sorted({t.get("status") for t in e.get("tests", []) if "[cuda" not in t.get("name", "")})
    broken = rep is None or (e.get("max_score") or 0) < 19 or (e.get("score") or 0) > 0
    return broken, f"[{level_of(rep)}] {e.get('score')}/{e.get('max_score')}", \
        f"statuses of the CPU tests: {statuses}{junk_note(junk)}"


def a18_gradescope_memory(ctx):
    """The Gradescope path (gradescope-run --root): the MAP_GROWSDOWN bypass there too, nested upload."""
    base = ctx.fresh("a18")
    sub = base / "autograder" / "submission" / "nested" / "deeper"
    sub.mkdir(parents=True)
    (base / "autograder" / "results").mkdir()
    shutil.copy(HERE / "a02_growsdown_memory" / "exercise3_scaling.py", sub)
    rc, out, peak, junk = ctx.grade(["gradescope-run", "--root", base / "autograder", "--no-perf"], base,
                                    extra_env={"ATTACK_MIB": "4608"})  # beyond the default --memory-limit, 4G
    res = report_json(base / "autograder" / "results" / "results.json") or {}
    broken = peak["rss"] > (4096 + 300) * MIB
    level = (res.get("extra_data") or {}).get("containment", "?") if isinstance(res.get("extra_data"), dict) else "?"
    return broken, f"[{level}] score {res.get('score')} rc {rc}", \
        f"largest RSS of one process: {peak['rss'] // MIB} MiB under the default 4 GiB memory limit{junk_note(junk)}"


ATTACKS = {name: fn for name, fn in globals().items() if name[:1] == "a" and name[1:3].isdigit()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kit")
    ap.add_argument("python")
    ap.add_argument("--user-python", required=True)
    ap.add_argument("--mode", default="both", choices=("root", "user", "both"))
    ap.add_argument("--only", default="")
    ap.add_argument("--work", default="/tmp/r4-runs")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root (user runs drop to uid 65534 with setpriv)")
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    os.chmod(work, 0o755)
    only = [s for s in a.only.split(",") if s]
    modes = ("root", "user") if a.mode == "both" else (a.mode,)
    for name, fn in ATTACKS.items():
        if only and not any(name.startswith(o) for o in only):
            continue
        for mode in modes:
            ctx = Ctx(a.kit, a.python, a.user_python, mode, work)
            started = time.monotonic()
            try:
                broken, said, happened = fn(ctx)
            except Exception as error:  # the runner's own failure: say so
                broken, said, happened = None, "runner error", repr(error)
            verdict = "BROKEN" if broken else "HELD" if broken is not None else "ERROR"
            print(f"{verdict:6} {name} [{mode}] kit: {said} | observed: {happened} "
                  f"({time.monotonic() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
