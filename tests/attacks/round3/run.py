#!/usr/bin/env python3
"""Re-runnable attacks on the Lumen attention kit.

    python3 run.py KIT PYTHON [--user-python PY] [--mode root|user|both] [--only a,b,...]

KIT: the kit's folder (holds solutions/, lumen_ref/); PYTHON: the interpreter of a venv where the kit
is installed (runs `PYTHON -m grader ...` from a neutral folder). As root, --mode both (default) runs
every attack as root and again as uid 65534 (setpriv) with --user-python (default PYTHON; it must be
runnable by uid 65534). Prints one line per attack and privilege: BROKEN / HELD / N/A, decided from
observable effects (files, scores, kernel counters, leftover processes and folders), not from what
the kit says about itself. Protective outer limits: ulimit -u 3000 around every grading run, small
sizes, short timeouts.
"""
import argparse
import csv
import json
import os
import pwd
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
USER = 65534
NPROC = 3000  # the outer ulimit -u: protects the machine's PIDs from the thread attacks
RESULTS = []


def say(attack, mode, verdict, detail):
    line = f"{verdict:6} {attack:22} {mode:5} {detail}"
    RESULTS.append((attack, mode, verdict, detail))
    print(line, flush=True)


class Ctx:
    def __init__(self, kit, python, mode):
        self.kit, self.python, self.mode = os.path.abspath(kit), python, mode
        self.work = f"/tmp/atk-{mode}"
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        if mode == "user":
            os.makedirs("/tmp/u65534", exist_ok=True)
            os.chown("/tmp/u65534", USER, USER)
            os.chown(self.work, USER, USER)

    def prefix(self):
        if self.mode == "user" and os.geteuid() == 0:
            return ["setpriv", "--reuid", str(USER), "--regid", str(USER), "--clear-groups",
                    "env", "HOME=/tmp/u65534"]
        return []

    def folder(self, name):
        path = os.path.join(self.work, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        if self.mode == "user":
            os.chown(path, USER, USER)
        return path

    def chown_tree(self, path):
        if self.mode != "user":
            return
        subprocess.run(["chown", "-R", "-h", f"{USER}:{USER}", path], check=True)

    def run(self, args, env=None, timeout=300, tmpdir=None, cwd=None):
        """Run `PYTHON -m grader ARGS` under the outer limits; returns (rc, stdout, stderr, seconds)."""
        full_env = dict(os.environ)
        full_env.pop("LUMEN_NO_KERNEL_CONTAINMENT", None)
        full_env.update(env or {})
        full_env["ATTACK_MARK"] = MARK.split("=", 1)[1]
        if tmpdir:
            full_env["TMPDIR"] = tmpdir
        cmd = ["bash", "-c", f'ulimit -u {NPROC}; exec "$@"', "x", *self.prefix(), *(
            [f"TMPDIR={tmpdir}"] if tmpdir and self.prefix() else []), self.python, "-m", "grader", *args]
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, env=full_env, capture_output=True, timeout=timeout, cwd=cwd or self.work)
            rc, out, err = p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            rc, out, err = "TIMEOUT", (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace")
        return rc, out, err, time.monotonic() - t0

    def grade(self, sub, exercise="exercise3", env=None, extra=(), timeout=300, tmpdir=None):
        rc, out, err, secs = self.run([exercise, "--submission", sub, "--no-perf", "--format", "json", *extra],
                                      env=env, timeout=timeout, tmpdir=tmpdir)
        try:
            report = json.loads(out)
        except ValueError:
            report = None
        return rc, report, err, secs


def attack_output(report, tag="ATTACK"):
    if not report:
        return None
    for e in report["exercises"]:
        o = e.get("output") or ""
        i = o.find(tag)
        if i >= 0:
            text = o[i + len(tag):].split("\n")[0]
            try:
                return json.loads(text)
            except ValueError:
                return {"raw": text[:300]}
    return None


def summary(report):
    if not report:
        return "no report"
    return f"score {report['score']:g}/{report['max_score']:g} containment {report['containment']}"


MARK = f"ATTACK_MARK=lumen-attack-{os.getpid()}"


def user_procs():
    """Processes still alive that carry this runner's marker in their environment (ours, whatever uid)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if MARK.encode() in f.read().split(b"\0"):
                    with open(f"/proc/{pid}/stat") as g:
                        found.append(pid + " " + g.read().split(")")[0].split("(")[-1])
        except OSError:
            pass
    return found


def leftovers(tmpdir):
    found = []
    for here, dirs, names in os.walk(tmpdir):
        found += [os.path.join(here, n) for n in dirs + names]
    return found


def chmod_open_and_remove(path):
    """Our own clean-up (as root), for what the kit may have left."""
    subprocess.run(["chmod", "-R", "u+rwx", path], capture_output=True)
    subprocess.run(["rm", "-rf", path], capture_output=True)


# -- the attacks ---------------------------------------------------------------------------------

def a_probe(ctx):
    sub = os.path.join(HERE, "probe", "sub")
    rc, report, err, _ = ctx.grade(sub, env={"KIT_HINT": ctx.kit})
    got = attack_output(report, "PROBE")
    if got is None:
        return say("probe", ctx.mode, "?", f"no probe output ({summary(report)}) {err[-200:]}")
    bad = [k for k, v in got.items() if isinstance(v, str) and v.startswith("READ") and
           ("lumen_ref" in k or "solutions" in k or "K/" in k or "shadow" in k or "environ" in k or "maps" in k)]
    bad += [k for k in ("net2", "net10") if got.get(k) == "SENT"]
    bad += ["fork"] if got.get("fork") == "FORKED" else []
    bad += ["kill_ppid"] if got.get("kill_ppid") == "OK" else []
    bad += ["gc:" + ",".join(got["gc_funcs"][:3])] if got.get("gc_funcs") or got.get("gc_lumen_ref_mods") else []
    verdict = "BROKEN" if bad else "HELD"
    say("probe", ctx.mode, verdict, f"{summary(report)}; escaped: {bad or 'nothing'} "
        f"(parent cmdline readable: {got.get('/proc/%s/cmdline' % '', '') or [k for k in got if k.endswith('cmdline')]})")


def a_thread_bomb(ctx):
    sub = os.path.join(HERE, "thread_bomb", "sub")
    before = len(user_procs())
    rc, report, err, _ = ctx.grade(sub, env={"ATTACK_N": "1500"})
    got = attack_output(report) or {}
    after = len(user_procs())
    n = got.get("threads", 0)
    verdict = "BROKEN" if n >= 1000 else "HELD"
    say("thread_bomb", ctx.mode, verdict, f"{summary(report)}; the child started {n} threads "
        f"(kit bound: none; stopped only by our outer ulimit -u {NPROC}) err={got.get('err')!r}; "
        f"uid {USER} processes before/after {before}/{after}")


def a_thread_pid_starvation(ctx):
    """Batch -j 2: mallory holds ~all the PIDs uid 65534 may have (here: the outer ulimit -u, standing in
    for pid_max / a user's nproc limit) while classmates are graded."""
    klass = ctx.folder("class-threads")
    honest_names = ("bob", "carol", "dave", "erin")
    for name in honest_names:
        os.makedirs(os.path.join(klass, name))
        for f in os.listdir(os.path.join(ctx.kit, "solutions")):
            if f in ("exercise3_scaling.py", "exercise5_softmax.py", "exercise6_multihead.py"):
                shutil.copy(os.path.join(ctx.kit, "solutions", f), os.path.join(klass, name, f))
    os.makedirs(os.path.join(klass, "aaa_mallory"))
    shutil.copy(os.path.join(HERE, "thread_hold", "sub", "exercise3_scaling.py"), os.path.join(klass, "aaa_mallory"))
    ctx.chown_tree(klass)
    out = os.path.join(ctx.folder("out-threads"), "grades.csv")
    # honest baseline: the same class without mallory
    n = 100000  # as many as it can get: stopped only by the outer ulimit -u
    tmp = ctx.folder("tmp-starve")
    rc, o, e, secs = ctx.run(["batch", klass, "--out", out, "-j", "2", "--no-perf", "--timeout", "40"],
                             env={"ATTACK_N": str(n), "ATTACK_HOLD": "35"}, timeout=600, tmpdir=tmp)
    left = os.listdir(tmp)
    chmod_open_and_remove(tmp)
    m_report = classbook_threads(out, "aaa_mallory")
    rows = {}
    try:
        with open(out) as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
    except OSError:
        pass
    honest = {s: (rows.get(s, {}).get("status"), rows.get(s, {}).get("total")) for s in honest_names}
    full = all(v[0] == "graded" and v[1] and float(v[1]) >= 82 for v in honest.values())
    m = rows.get("aaa_mallory", {})
    verdict = "HELD" if full and not left else "BROKEN"
    say("thread_pid_starvation", ctx.mode, verdict,
        f"batch rc={rc}; honest rows {honest} (honest full marks: 82); mallory {m.get('status')} {m.get('total')} "
        f"threads held {m_report}; left in TMPDIR {left[:3]}; batch stderr: {(e.strip().splitlines() or [''])[-1][:120]!r} "
        f"{(m.get('message') or '')[:120]}")


def classbook_threads(out, student):
    try:
        with open(os.path.join(out[:-4], student + ".json")) as f:
            report = json.load(f)["report"]
        return (attack_output(report) or {}).get("threads")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def a_disk_fill(ctx):
    sub = os.path.join(HERE, "disk_fill", "sub")
    tmp = ctx.folder("tmp-disk")
    rc, report, err, _ = ctx.grade(sub, tmpdir=tmp)
    got = attack_output(report) or {}
    b = got.get("bytes", 0)
    verdict = "BROKEN" if b > 64 << 20 else "HELD"
    say("disk_fill", ctx.mode, verdict, f"{summary(report)}; wrote {b >> 20} MiB into its scratch "
        f"(root bound 64 MiB; asked for 320 MiB in 8 MiB files) err={got.get('err')!r}")
    chmod_open_and_remove(tmp)


def _slab():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Slab:"):
                return int(line.split()[1])


def a_inode_bomb(ctx):
    sub = os.path.join(HERE, "inode_bomb", "sub")
    tmp = ctx.folder("tmp-inode")
    peak, stop = [_slab()], threading.Event()

    def watch():
        while not stop.is_set():
            peak.append(_slab())
            time.sleep(0.3)

    t = threading.Thread(target=watch)
    t.start()
    start = _slab()
    rc, report, err, _ = ctx.grade(sub, tmpdir=tmp, env={"ATTACK_N": "300000", "ATTACK_HOLD": "2"},
                                   extra=["--memory-limit", "1"] if False else ())
    stop.set()
    t.join()
    got = attack_output(report) or {}
    grew = (max(peak) - start) >> 10
    verdict = "BROKEN" if got.get("files", 0) >= 300000 and grew > 128 else "HELD"
    say("inode_bomb", ctx.mode, verdict, f"{summary(report)}; made {got.get('files')} empty files; kernel slab "
        f"grew {grew} MiB during the run (not counted by the 64 MiB scratch or --memory-limit) err={got.get('err')!r}")
    chmod_open_and_remove(tmp)


def a_deep_junk(ctx):
    sub = os.path.join(HERE, "deep_junk", "sub")
    tmp = ctx.folder("tmp-deep")
    rc, report, err, _ = ctx.grade(sub, tmpdir=tmp)
    got = attack_output(report) or {}
    left = leftovers(tmp)
    du = subprocess.run(["du", "-sm", tmp], capture_output=True, text=True).stdout.split()[:1]
    verdict = "BROKEN" if left else "HELD"
    say("deep_junk", ctx.mode, verdict, f"{summary(report)}; depth {got.get('depth')}; left in TMPDIR after the "
        f"run: {len(left)} entries, {du} MiB {left[:1]}")
    chmod_open_and_remove(tmp)


def _deep(path, depth):
    fd = os.open(path, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        new = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = new
    os.close(fd)


def a_batch_deep_nesting(ctx):
    """A student's upload nested 1100 folders deep: os.walk (Python 3.11) recurses past the limit."""
    klass = ctx.folder("class-deep")
    for name in ("alice", "zed"):
        os.makedirs(os.path.join(klass, name))
        shutil.copy(os.path.join(ctx.kit, "solutions", "exercise3_scaling.py"), os.path.join(klass, name))
    os.makedirs(os.path.join(klass, "mallory"))
    shutil.copy(os.path.join(ctx.kit, "exercises", "exercise3_scaling.py"), os.path.join(klass, "mallory"))
    _deep(os.path.join(klass, "mallory"), 1100)
    ctx.chown_tree(klass)
    out = os.path.join(ctx.folder("out-deep"), "grades.csv")
    tmp = ctx.folder("tmp-batchdeep")
    rc, o, e, secs = ctx.run(["batch", klass, "--out", out, "-j", "1", "--no-perf", "--timeout", "30"],
                             tmpdir=tmp, timeout=400)
    rows = {}
    try:
        with open(out) as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
    except OSError:
        pass
    honest = {s: rows.get(s, {}).get("status") for s in ("alice", "zed")}
    left = [p for p in os.listdir(tmp)]
    last = e.strip().splitlines()[-1] if e.strip() else ""
    verdict = "BROKEN" if honest.get("zed") != "graded" or left else "HELD"
    say("batch_deep_nesting", ctx.mode, verdict, f"batch rc={rc} ({last[:90]}); rows {honest}; mallory "
        f"{rows.get('mallory', {}).get('status')}; left in TMPDIR: {left[:3]}")
    chmod_open_and_remove(tmp)
    chmod_open_and_remove(klass)


def a_gradescope_deep_nesting(ctx):
    root = ctx.folder("gs-root")
    os.makedirs(os.path.join(root, "submission"))
    shutil.copy(os.path.join(ctx.kit, "solutions", "exercise3_scaling.py"), os.path.join(root, "submission"))
    _deep(os.path.join(root, "submission"), 1100)
    ctx.chown_tree(root)
    rc, o, e, secs = ctx.run(["gradescope-run", "--root", root, "--no-perf", "--exercise", "exercise3"], timeout=300)
    try:
        res = json.load(open(os.path.join(root, "results", "results.json")))
    except (OSError, ValueError):
        res = {}
    score = res.get("score")
    verdict = "BROKEN" if not score else "HELD"
    say("gradescope_deep_nest", ctx.mode, verdict, f"rc={rc}; a correct exercise3 beside a 1100-deep folder "
        f"scored {score} ({(res.get('output') or '')[:100]!r})")
    chmod_open_and_remove(root)


def a_batch_hardlink(ctx):
    """mallory's exercise3_scaling.py is a hard link to the kit's solution (made by someone with an
    account on the grading machine). `lumen-grade exercise3` refuses it; does batch?"""
    klass = ctx.folder("class-hard")
    os.makedirs(os.path.join(klass, "mallory"))
    target = os.path.join(ctx.kit, "solutions", "exercise3_scaling.py")
    dest = os.path.join(klass, "mallory", "exercise3_scaling.py")
    try:
        if ctx.mode == "user":
            r = subprocess.run([*ctx.prefix(), "ln", target, dest], capture_output=True, text=True)
            if r.returncode:
                return say("batch_hardlink", ctx.mode, "N/A", f"uid {USER} cannot hard-link the root-owned "
                           f"solution (fs.protected_hardlinks): {r.stderr.strip()[:80]}")
        else:
            os.link(target, dest)
    except OSError as error:
        return say("batch_hardlink", ctx.mode, "N/A", f"cannot make the hard link: {error}")
    rc1, single, _, _ = ctx.grade(os.path.join(klass, "mallory"))
    out = os.path.join(ctx.folder("out-hard"), "grades.csv")
    rc, o, e, secs = ctx.run(["batch", klass, "--out", out, "-j", "1", "--no-perf", "--timeout", "30"], timeout=400)
    rows = {}
    try:
        with open(out) as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
    except OSError:
        pass
    m = rows.get("mallory", {})
    verdict = "BROKEN" if m.get("exercise3") in ("19", "19.0") else "HELD"
    say("batch_hardlink", ctx.mode, verdict, f"single run: {summary(single)}; batch: mallory exercise3="
        f"{m.get('exercise3')} status={m.get('status')} (a hard link to solutions/, copied by stage())")
    os.unlink(dest)


def a_batch_symlinks(ctx):
    klass = ctx.folder("class-sym")
    os.makedirs(os.path.join(klass, "alice"))
    shutil.copy(os.path.join(ctx.kit, "solutions", "exercise3_scaling.py"), os.path.join(klass, "alice"))
    os.makedirs(os.path.join(klass, "mallory"))
    os.symlink("../alice/exercise3_scaling.py", os.path.join(klass, "mallory", "exercise3_scaling.py"))
    os.symlink(os.path.join(ctx.kit, "solutions"), os.path.join(klass, "mallory", "sol"))
    os.symlink("../alice", os.path.join(klass, "mallory", "alice_dir"))
    ctx.chown_tree(klass)
    out = os.path.join(ctx.folder("out-sym"), "grades.csv")
    rc, o, e, secs = ctx.run(["batch", klass, "--out", out, "-j", "1", "--no-perf", "--timeout", "30"], timeout=400)
    rows = {}
    try:
        with open(out) as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
    except OSError:
        pass
    m = rows.get("mallory", {})
    verdict = "BROKEN" if m.get("exercise3") not in ("", "0", None) else "HELD"
    say("batch_symlinks", ctx.mode, verdict, f"mallory exercise3={m.get('exercise3')!r} status={m.get('status')}; "
        f"alice {rows.get('alice', {}).get('exercise3')}")


def a_hang(ctx):
    sub = os.path.join(HERE, "hang", "sub")
    tmp = ctx.folder("tmp-hang")
    before = set(user_procs())
    rc, report, err, secs = ctx.grade(sub, extra=["--timeout", "5", "--total-timeout", "20"], tmpdir=tmp, timeout=120)
    time.sleep(2)
    new = [p for p in user_procs() if p not in before]
    left = leftovers(tmp)
    verdict = "BROKEN" if rc == "TIMEOUT" or secs > 40 or new or left else "HELD"
    say("hang", ctx.mode, verdict, f"rc={rc} after {secs:.0f} s ({summary(report)}); leftover processes {new}; "
        f"leftover files {len(left)}")
    chmod_open_and_remove(tmp)


def _meminfo(field):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])


def a_sock_kmem(ctx):
    """64 Unix socket pairs, each holding up to 4 MiB queued in the kernel, under --memory-limit 128M."""
    sub = os.path.join(HERE, "sock_kmem", "sub")
    low, stop = [_meminfo("MemAvailable")], threading.Event()

    def watch():
        while not stop.is_set():
            low.append(_meminfo("MemAvailable"))
            time.sleep(0.2)

    t = threading.Thread(target=watch)
    t.start()
    start = _meminfo("MemAvailable")
    rc, report, err, _ = ctx.grade(sub, env={"ATTACK_N": "64", "ATTACK_HOLD": "3"}, extra=["--memory-limit", "128M"])
    stop.set()
    t.join()
    got = attack_output(report) or {}
    drop = (start - min(low)) >> 10
    verdict = "BROKEN" if got.get("held_MiB", 0) > 128 else "HELD"
    say("sock_kmem", ctx.mode, verdict, f"{summary(report)}; under --memory-limit 128M the child queued "
        f"{got.get('held_MiB')} MiB in {got.get('pairs')} socket pairs (MemAvailable fell {drop} MiB; "
        f"RLIMIT_NOFILE allows ~{os.sysconf('SC_OPEN_MAX') // 2} pairs) err={got.get('err')!r}")


def a_unix_connect(ctx):
    """A service of the grading user listening on a Unix socket outside the sandbox (like ssh-agent)."""
    import socket as _socket
    sub = os.path.join(HERE, "unix_connect", "sub")
    folder = ctx.folder("agent")
    os.chmod(folder, 0o700)
    path = os.path.join(folder, "agent.sock")
    srv = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    srv.bind(path)
    if ctx.mode == "user":
        os.chown(path, USER, USER)
    os.chmod(path, 0o600)
    srv.listen(5)
    srv.settimeout(60)
    heard = []

    def serve():
        try:
            while True:
                c, _ = srv.accept()
                heard.append(c.recv(200))
                c.sendall(b"AGENT-SECRET-42")
                c.close()
        except OSError:
            pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    rc, report, err, _ = ctx.grade(sub, env={"ATTACK_SOCK": path})
    srv.close()
    got = attack_output(report) or {}
    verdict = "BROKEN" if heard or "AGENT-SECRET" in got.get("reply", "") else "HELD"
    say("unix_connect", ctx.mode, verdict, f"{summary(report)}; the service outside heard {heard[:1]}; the child "
        f"got {got}")


def a_batch_bad_utf8(ctx):
    """A folder name that is not UTF-8 (a raw byte from a zip) beside an ignored copy: can it crash batch?"""
    klass = ctx.folder("class-utf")
    for name in ("alice", "mallory", "zed"):
        os.makedirs(os.path.join(klass, name))
        src = "exercises" if name == "mallory" else "solutions"
        shutil.copy(os.path.join(ctx.kit, src, "exercise3_scaling.py"), os.path.join(klass, name))
    bad = os.fsencode(os.path.join(klass, "mallory")) + b"/sub\xff\xfe"
    os.mkdir(bad)
    with open(bad + b"/exercise3_scaling.py", "w") as f:
        f.write("x = 1\n")
    ctx.chown_tree(klass)
    out = os.path.join(ctx.folder("out-utf"), "grades.csv")
    rc, o, e, secs = ctx.run(["batch", klass, "--out", out, "-j", "1", "--no-perf", "--timeout", "30"], timeout=400)
    rows = {}
    try:
        with open(out) as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
    except OSError:
        pass
    ok = rows.get("zed", {}).get("exercise3") == "19" and rows.get("alice", {}).get("exercise3") == "19"
    say("batch_bad_utf8", ctx.mode, "HELD" if ok and rc in (0, 1) else "BROKEN",
        f"batch rc={rc}; alice/zed exercise3 {rows.get('alice', {}).get('exercise3')}/{rows.get('zed', {}).get('exercise3')}; "
        f"mallory {rows.get('mallory', {}).get('status')}")
    chmod_open_and_remove(klass)


def a_nobody_starvation(ctx):
    """Root grading: every child runs as uid 65534 ('nobody'), the uid of other services and of
    unprivileged graders on the machine. Mallory's child (graded by root) takes all the tasks nobody may
    have (outer ulimit -u, standing in for nproc/pid_max) while an unrelated grader runs as nobody."""
    if ctx.mode != "root" or os.geteuid() != 0:
        return say("nobody_starvation", ctx.mode, "N/A", "needs a root grader")
    sub = os.path.join(HERE, "thread_hold", "sub")
    res = {}

    def attacker():
        res["mallory"] = ctx.grade(sub, env={"ATTACK_N": "100000", "ATTACK_HOLD": "25"}, timeout=200)

    t = threading.Thread(target=attacker)
    t.start()
    time.sleep(9)
    victim = Ctx.__new__(Ctx)
    victim.kit, victim.python, victim.mode, victim.work = ctx.kit, ctx.user_python, "user", ctx.work
    os.makedirs("/tmp/u65534", exist_ok=True)
    os.chown("/tmp/u65534", USER, USER)
    vtmp = ctx.folder("tmp-victim")
    os.chown(vtmp, USER, USER)
    rc, report, err, _ = victim.grade(os.path.join(ctx.kit, "solutions"), tmpdir=vtmp, timeout=200)
    t.join()
    m = attack_output(res["mallory"][1]) or {}
    ok = report is not None and report["score"] == report["max_score"]
    say("nobody_starvation", ctx.mode, "HELD" if ok else "BROKEN",
        f"mallory (root-graded, runs as uid {USER}) held {m.get('threads')} threads; meanwhile an honest "
        f"uid-{USER} grading of solutions/ got rc={rc} {summary(report)} {err.strip().splitlines()[-1][:100] if err.strip() else ''}")
    chmod_open_and_remove(vtmp)


ATTACKS = {"probe": a_probe, "thread_bomb": a_thread_bomb, "disk_fill": a_disk_fill, "inode_bomb": a_inode_bomb,
           "deep_junk": a_deep_junk, "hang": a_hang, "batch_deep_nesting": a_batch_deep_nesting,
           "gradescope_deep_nest": a_gradescope_deep_nesting, "batch_hardlink": a_batch_hardlink,
           "batch_symlinks": a_batch_symlinks, "thread_pid_starvation": a_thread_pid_starvation,
           "sock_kmem": a_sock_kmem, "unix_connect": a_unix_connect,
           "batch_bad_utf8": a_batch_bad_utf8, "nobody_starvation": a_nobody_starvation}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kit")
    p.add_argument("python")
    p.add_argument("--user-python")
    p.add_argument("--mode", default="both", choices=["root", "user", "both"])
    p.add_argument("--only", default="")
    a = p.parse_args()
    modes = ["root", "user"] if a.mode == "both" else [a.mode]
    if os.geteuid() != 0:
        modes = ["user"]  # already unprivileged: no setpriv
    names = [n for n in ATTACKS if not a.only or n in a.only.split(",")]
    for mode in modes:
        python = a.user_python or a.python if mode == "user" else a.python
        ctx = Ctx(a.kit, python, mode)
        ctx.user_python = a.user_python or a.python
        for name in names:
            try:
                ATTACKS[name](ctx)
            except Exception as error:  # an attack's own failure, never the verdict
                say(name, mode, "?", f"runner error: {type(error).__name__}: {error}")
        chmod_open_and_remove(ctx.work)
    with open(os.path.join(HERE, "results.json"), "w") as f:
        json.dump(RESULTS, f, indent=1)


if __name__ == "__main__":
    main()
