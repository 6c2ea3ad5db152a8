#!/usr/bin/env python3
"""Run every attack of this folder as root and as an unprivileged user (uid 65534 via setpriv),
judge each by what is observed outside the kit (report files, gradebooks, ipcs, /proc/meminfo,
TMPDIR left-overs), and write results.json and results.md beside this script.

    sudo python3 tests/attacks/round5/run.py            # everything, both privileges
    sudo python3 tests/attacks/round5/run.py a01 a04    # some attacks
    sudo python3 tests/attacks/round5/run.py --only root

Needs: /work/scratch-attack5/.venv (root's kit) and /tmp/venv-u5 (the user's, from /usr/bin/python3.11,
chmod -R a+rX), both `pip install torch==2.13.0 -e /work/scratch-attack5`.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.environ.get("LUMEN_KIT", "/work/scratch-attack5")  # a checkout with its own .venv
LUMEN = {"root": f"{KIT}/.venv/bin/lumen-grade", "user": os.environ.get("LUMEN_USER_VENV", "/tmp/venv-u5") + "/bin/lumen-grade"}
RUNS = "/tmp/a5run"
ROWS = []


def run(priv, args, name, fake_gpu=False, timeout=900):
    """lumen-grade ARGS as `priv` in a fresh work folder and a fresh TMPDIR; returns a dict with rc,
    output, the work folder and what was left in TMPDIR."""
    work = os.path.join(RUNS, priv, name)
    shutil.rmtree(work, ignore_errors=True)  # fresh: a batch would otherwise resume from an earlier gradebook
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o777)
    tmp = tempfile.mkdtemp(prefix="tmpdir-", dir=work)
    os.chmod(tmp, 0o1777)
    env = {"PATH": "/usr/bin:/bin", "HOME": work, "TMPDIR": tmp, "LANG": "C.UTF-8"}
    cmd = [LUMEN[priv], *args]
    if priv == "user":
        cmd = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--",
               "env", *(f"{k}={v}" for k, v in env.items()), *cmd]
    if fake_gpu:
        cmd = [os.path.join(HERE, "a04_gpu_sysv_shm_left_behind", "fake_gpu.sh"), *cmd]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=lambda: os.setpgrp())
    left = sorted(os.listdir(tmp))
    with open(os.path.join(work, "run.log"), "a") as log:  # every run's own output, for the record
        log.write(f"$ {' '.join(cmd)}\nrc={proc.returncode}\n{proc.stdout}{proc.stderr}\n")
    return {"rc": proc.returncode, "out": proc.stdout + proc.stderr, "work": work, "left": left,
            "seconds": round(time.monotonic() - started, 1)}


def report(path):
    with open(path) as f:
        return json.load(f)


def row(attack, priv, said, observed, verdict):
    ROWS.append({"attack": attack, "privilege": priv, "kit said": said, "observed": observed, "verdict": verdict})
    print(f"[{verdict}] {attack} ({priv}): {observed}", flush=True)


def out_file(r, name):
    return os.path.join(r["work"], name)


def left_note(r):
    return f"; TMPDIR left-overs: {r['left']}" if r["left"] else ""


# -- the attacks ------------------------------------------------------------------------------


def a01(priv):
    sub = os.path.join(HERE, "a01_softmax_inductor_decomp")
    r = run(priv, ["exercise5", "--submission", sub, "--perf-points", "2", "--format", "json", "--output",
                   "a01.json"], "a01")
    d = report(out_file(r, "a01.json"))
    e = d["exercises"][0]
    forbidden = [t["name"] for t in e["tests"] if "torch's softmax" in (t.get("message") or "")
                 or "ForbiddenCall" in (t.get("message") or "")]
    softmax_ok = [t["name"] for t in e["tests"] if t["name"].startswith("test_softmax") and t["status"] == "passed"]
    said = f"{d['containment']}, {e['score']:g}/{e['max_score']:g}, tier {e['tier'] and e['tier']['id']}"
    obs = (f"torch._decomp's own _softmax ran for every call; {len(softmax_ok)} softmax tests passed, "
           f"{len(forbidden)} tests flagged as a forbidden shortcut{left_note(r)}")
    row("a01 softmax via torch._inductor.decomposition", priv, said, obs,
        "BROKEN" if softmax_ok and not forbidden else "HELD")


def _with_alice(cls):
    """A copy of the class folder `cls` with alice, the honest classmate, holding the kit's solutions."""
    folder = os.path.join(tempfile.mkdtemp(prefix="a02-"), os.path.basename(cls))
    shutil.copytree(cls, folder)
    shutil.copytree(os.path.join(KIT, "solutions"), os.path.join(folder, "alice"))
    os.chmod(os.path.dirname(folder), 0o755)
    subprocess.run(["chmod", "-R", "a+rX", os.path.dirname(folder)], check=True)
    return folder


def a02(priv):
    base = os.path.join(HERE, "a02_cpu_hog_classmate", "class_base")
    attack = os.path.join(HERE, "a02_cpu_hog_classmate", "class_attack")
    rows = {}
    for label, cls in (("base", base), ("attack", attack)):
        cls = _with_alice(cls)
        r = run(priv, ["batch", cls, "--out", "grades.csv", "--jobs", "2", "--timeout", "10"], f"a02_{label}")
        with open(out_file(r, "grades.csv")) as f:
            lines = {line.split(",")[0]: line.strip() for line in f}
        alice = lines.get("alice", "")
        secs = re.search(r"alice: .*?\(graded, ([\d.]+) s\)", r["out"])
        rows[label] = (alice.split(",")[12] if alice.count(",") > 12 else alice,
                       secs.group(1) if secs else "?", "not timed" in alice, r)
    said = f"alice total {rows['attack'][0]} (baseline {rows['base'][0]})"
    obs = (f"alice graded in {rows['attack'][1]} s beside mallory's 63 GIL-free burner threads per child "
           f"(baseline {rows['base'][1]} s); her tiers {'lost' if rows['attack'][2] else 'kept'}"
           f"{left_note(rows['attack'][3])}. Autogroup is on here (sched_autogroup_enabled="
           f"{open('/proc/sys/kernel/sched_autogroup_enabled').read().strip()}): each child's setsid gives it its own CPU share")
    spoiled = rows["attack"][0] != rows["base"][0] or rows["attack"][2]
    row("a02 CPU hog beside a classmate (batch --jobs 2)", priv, said, obs, "BROKEN" if spoiled else "HELD")


def _tier(priv, sub, name):
    r = run(priv, ["exercise5", "--submission", sub, "--perf-points", "2", "--format", "json", "--output",
                   f"{name}.json"], name)
    e = report(out_file(r, f"{name}.json"))["exercises"][0]
    t = e["tier"] or {}
    return t.get("id"), t.get("ratio"), e["score"], r


def a03(priv, runs=2):
    slow = [_tier(priv, os.path.join(HERE, "a03_perf_bandwidth_hog", "slow"), f"a03_slow{i}") for i in range(runs)]
    hog = [_tier(priv, os.path.join(HERE, "a03_perf_bandwidth_hog", "hog"), f"a03_hog{i}") for i in range(runs)]
    said = "hog: " + ", ".join(f"{t} {r}" for t, r, _, _ in hog)
    obs = "same maths honest: " + ", ".join(f"{t} {r}" for t, r, _, _ in slow)
    better = any(t == "on-par" for t, _, _, _ in hog) and not any(t == "on-par" for t, _, _, _ in slow)
    row("a03 slow the reference with a bandwidth hog between my calls", priv, said, obs, "BROKEN" if better else "HELD")


def a07(priv, runs=2):
    slow = [_tier(priv, os.path.join(HERE, "a03_perf_bandwidth_hog", "slow"), f"a07_slow{i}") for i in range(runs)]
    zero = [_tier(priv, os.path.join(HERE, "a07_perf_zero_clocks"), f"a07_zero{i}") for i in range(runs)]
    said = "zeroed clocks: " + ", ".join(f"{t} {r}" for t, r, _, _ in zero)
    obs = "the same work with honest clocks: " + ", ".join(f"{t} {r}" for t, r, _, _ in slow)
    best_zero = min(r for _, r, _, _ in zero if r is not None)
    best_slow = min(r for _, r, _, _ in slow if r is not None)
    forged = any(t == "on-par" for t, _, _, _ in zero) and not any(t == "on-par" for t, _, _, _ in slow)
    obs += f"; best ratio {best_zero} vs {best_slow} (x{best_zero / best_slow:.2f}; the docs admit x0.7)"
    row("a07 zero the child's clock readings (frame walk to grader.sandbox.clock)", priv, said, obs,
        "BROKEN" if forged or best_zero < 0.7 * best_slow else "HELD")


def _segments():
    out = subprocess.run(["ipcs", "-m"], capture_output=True, text=True).stdout
    return {line.split()[1]: line.split()[4] for line in out.splitlines()
            if line.startswith("0x") and len(line.split()) >= 5}


def _shmem_kib():
    for line in open("/proc/meminfo"):
        if line.startswith("Shmem:"):
            return int(line.split()[1])
    return 0


def a04(priv):
    before, mem_before = _segments(), _shmem_kib()
    sub = os.path.join(HERE, "a04_gpu_sysv_shm_left_behind")
    r = run(priv, ["exercise3", "--submission", sub, "--memory-limit", "256M", "--no-perf", "--format", "json",
                   "--output", "a04.json"], "a04", fake_gpu=True)
    d = report(out_file(r, "a04.json"))
    e = d["exercises"][0]
    after, mem_after = _segments(), _shmem_kib()
    new = {k: v for k, v in after.items() if k not in before}
    said = f"{d['containment']} ({', '.join(d['containment_layers'])}), {e['score']:g}/{e['max_score']:g}"
    obs = (f"after the grader exited: {len(new)} SysV segments left ({sum(int(v) for v in new.values()) >> 20} MiB), "
           f"Shmem {mem_before >> 10} -> {mem_after >> 10} MiB with --memory-limit 256M{left_note(r)}")
    for shmid in new:  # clean up (this is a shared machine)
        subprocess.run(["ipcrm", "-m", shmid])
    obs += f"; removed by run.py (Shmem now {_shmem_kib() >> 10} MiB)"
    row("a04 [simulated /dev/nvidia0] SysV shm outlives the grader", priv, said, obs, "BROKEN" if new else "HELD")


def a05(priv):
    cls = os.path.join(HERE, "a05_notebook_bad_cells", "class")
    r = run(priv, ["batch", cls, "--out", "grades.csv", "--jobs", "2", "--timeout", "20", "--no-perf"], "a05")
    with open(out_file(r, "grades.csv")) as f:
        text = f.read()
    tracebacks = [s for s in ("int_source", "no_type") if re.search(rf"^{s},.*(File \"\"|\^\^\^|Error:)", text, re.M)]
    honest = re.search(r"^honest,graded,.*", text, re.M)
    said = "; ".join(line[:60] + "..." for line in text.splitlines()[1:])
    obs = (f"rows of {tracebacks} hold a grader traceback (submission.py python_source / notebook_cells), "
           f"honest row {'graded' if honest else 'missing'}{left_note(r)}")
    row("a05 notebook: int cell source / cell without cell_type (batch)", priv, said, obs,
        "BROKEN" if tracebacks else "HELD")
    # the same file through Gradescope's path, beside an honest exercise1
    work = os.path.join(RUNS, priv, "a05_gs")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "submission"))
    shutil.copy(os.path.join(cls, "int_source", "exercise3_scaling.ipynb"), os.path.join(work, "submission"))
    shutil.copy(f"{KIT}/solutions/exercise1_projection.py", os.path.join(work, "submission"))
    subprocess.run(["chmod", "-R", "a+rwX", work])
    g = run(priv, ["gradescope-run", "--root", work, "--no-perf", "--exercise", "exercise1", "--exercise", "exercise3"],
            "a05_gs_run")
    res = report(os.path.join(work, "results", "results.json"))
    failed = "autograder itself failed" in res.get("output", "")
    row("a05 the same notebook through gradescope-run (+ an honest exercise1)", priv,
        f"score {res.get('score')}: {res.get('output', '')[:110]}",
        f"whole submission scored {res.get('score')} (exercise1 alone earns 25); traceback in the log: "
        f"{'Traceback' in g['out']}{left_note(g)}", "BROKEN" if failed else "HELD")


def a06(priv):
    cls = os.path.join(HERE, "a06_odd_sources", "class")
    r = run(priv, ["batch", cls, "--out", "grades.csv", "--jobs", "2", "--timeout", "20", "--no-perf"], "a06")
    rows = {}
    for student in sorted(os.listdir(cls)):
        p = out_file(r, f"grades/{student}.json")
        d = report(p)
        ex = [x for x in d["report"]["exercises"] if x["id"] == "exercise3"][0] if d.get("report") else {}
        rows[student] = (d["status"], ex.get("score"), (ex.get("error") or d.get("message") or "")[:90])
    traceback_rows = [s for s, (_, _, m) in rows.items() if "Traceback" in m or 'File "' in m]
    row("a06 odd source bytes (latin-1 coding line, NUL, bad UTF-8, 200k brackets, CR-only, surrogate)", priv,
        "; ".join(f"{s}: {st} {sc}" for s, (st, sc, _) in rows.items() if s != "bom"),
        f"one-line reasons, no traceback rows: {not traceback_rows}{left_note(r)}",
        "BROKEN" if traceback_rows else "HELD")
    for student, what in (("bom", "a UTF-8 BOM (what Windows Notepad writes)"),
                          ("latin1", "a PEP 263 coding line (latin-1) and a latin-1 comment")):
        st, sc, msg = rows[student]
        path = os.path.join(cls, student, "exercise3_scaling.py")
        python_ok = subprocess.run([sys.executable, "-c", f"import runpy; runpy.run_path({path!r})"],
                                   capture_output=True).returncode == 0
        row(f"a06 honest code with {what}", priv, f"{st}, exercise3 {sc}/19: {msg}",
            f"python runs the same file fine: {python_ok}; the CR-only copy of the same code earns "
            f"{rows['crlf_cr'][1]}", "BROKEN" if python_ok and sc == 0 else "HELD")


def a08(priv):
    cls = os.path.join(HERE, "a08_csv_html_injection", "class")
    r = run(priv, ["batch", cls, "--out", "grades.csv", "--jobs", "2", "--timeout", "20", "--no-perf",
                   "--feedback", "fb", "--class-report"], "a08")
    csv = open(out_file(r, "grades.csv")).read()
    bare = [line[:40] for line in csv.splitlines()[1:] if line.lstrip('"')[:1] in "=+-@"]
    pages = [os.path.join(r["work"], "fb", f) for f in os.listdir(os.path.join(r["work"], "fb"))]
    pages.append(out_file(r, "class-report.html"))
    raw = [p for p in pages if os.path.exists(p) and re.search(r"<script>alert|<img src=x onerror", open(p).read())]
    row("a08 formula folder names in grades.csv, HTML in printed text and exceptions", priv,
        f"{len(csv.splitlines()) - 1} rows, {len(pages)} pages",
        f"formula cells left bare: {bare}; pages with live HTML: {[os.path.basename(p) for p in raw]}{left_note(r)}",
        "BROKEN" if bare or raw else "HELD")


def a09(priv):
    sub = os.path.join(HERE, "a09_memory_scan_secrets")
    r = run(priv, ["exercise3", "--submission", sub, "--format", "json", "--output", "a09.json"], "a09")
    e = report(out_file(r, "a09.json"))["exercises"][0]
    lines = [line for line in e["output"].splitlines() if line.startswith(("SECRETS", "SECRET-MODULES", "LINECACHE"))]
    empty = lines == ["SECRETS-IN-MEMORY: {}", "SECRET-MODULES: []", "LINECACHE: []"]
    row("a09 scan the child's memory (gc) for the answer key / hidden tests", priv, f"{e['score']:g}/{e['max_score']:g}",
        " | ".join(lines) + left_note(r), "HELD" if empty else "BROKEN")


def a10(priv):
    got = {}
    for label in ("honest", "forged"):
        sub = os.path.join(HERE, "a10_hide_inplace_edit", *(("honest",) if label == "honest" else ()))
        r = run(priv, ["exercise5", "--submission", sub, "--no-perf", "--format", "json", "--output", f"a10_{label}.json"],
                f"a10_{label}")
        e = report(out_file(r, f"a10_{label}.json"))["exercises"][0]
        kept = [t["status"] for t in e["tests"] if t["name"].startswith("test_inputs_not_modified[cpu")]
        got[label] = (e["score"], e["max_score"], kept, r)
    said = f"forged: {got['forged'][0]:g}/{got['forged'][1]:g}, test_inputs_not_modified {got['forged'][2]}"
    obs = (f"the same in-place edits unhidden: {got['honest'][0]:g}/{got['honest'][1]:g}, "
           f"test_inputs_not_modified {got['honest'][2]}; the forged file's softmax destroys its input "
           f"(x.sub_(m).exp_()) in every call{left_note(got['forged'][3])}")
    row("a10 hide in-place edits of the inputs (swap Session.call's `args` from the stack)", priv, said, obs,
        "BROKEN" if got["forged"][2] == ["passed"] and got["honest"][2] == ["failed"] else "HELD")


def a11(priv):
    cls = os.path.join(HERE, "a11_weird_returns")
    r = run(priv, ["batch", cls, "--out", "grades.csv", "--jobs", "2", "--timeout", "30", "--no-perf"], "a11")
    bad, counts = [], {}
    for p in sorted(os.listdir(out_file(r, "grades"))):
        d = report(out_file(r, f"grades/{p}"))
        if not d.get("report"):
            continue
        for e in d["report"]["exercises"]:
            for t in e["tests"]:
                counts[t["status"]] = counts.get(t["status"], 0) + 1
                m = t.get("message") or ""
                if "Traceback" in m or "/grader/" in m or "\n  File" in m:
                    bad.append(f"{p}:{e['id']}:{t['name']}")
    row("a11 NaN/inf/int/bool/empty/nested/huge/f16 returns from every function (judge-side checks, diagnosis)",
        priv, f"test statuses {counts}", f"tests whose message is a grader traceback: {bad[:5]}{left_note(r)}",
        "BROKEN" if bad else "HELD")


ATTACKS = {"a10": a10, "a11": a11, "a01": a01, "a02": a02, "a03": a03, "a04": a04, "a05": a05, "a06": a06, "a07": a07, "a08": a08,
           "a09": a09}


def main(argv):
    privs = ["root", "user"]
    if "--only" in argv:
        i = argv.index("--only")
        privs = [argv[i + 1]]
        argv = argv[:i] + argv[i + 2:]
    chosen = argv or list(ATTACKS)
    os.makedirs(RUNS, exist_ok=True)
    os.chmod(RUNS, 0o777)
    for priv in privs:
        os.makedirs(os.path.join(RUNS, priv), exist_ok=True)
        os.chmod(os.path.join(RUNS, priv), 0o777)
    for name in chosen:
        for priv in privs:
            try:
                ATTACKS[name](priv)
            except Exception as error:  # an attack that could not be judged is said so, not hidden
                row(name, priv, "-", f"run.py could not judge it: {type(error).__name__}: {error}", "UNJUDGED")
    kept = []  # rows of earlier runs for attacks and privileges not run now
    if os.path.exists(os.path.join(HERE, "results.json")):
        with open(os.path.join(HERE, "results.json")) as f:
            kept = [r for r in json.load(f) if not (r["attack"][:3] in chosen and r["privilege"] in privs)]
    ROWS[:0] = kept
    ROWS.sort(key=lambda r: (r["attack"][:3], r["attack"], r["privilege"] != "root"))
    with open(os.path.join(HERE, "results.json"), "w") as f:
        json.dump(ROWS, f, indent=2)
    with open(os.path.join(HERE, "results.md"), "w") as f:
        f.write("| attack | privilege | what the kit said | what actually happened | verdict |\n|---|---|---|---|---|\n")
        for r in ROWS:
            f.write("| " + " | ".join(str(r[k]).replace("|", "\\|").replace("\n", " ")
                                      for k in ("attack", "privilege", "kit said", "observed", "verdict")) + " |\n")
    print(f"wrote {HERE}/results.md")


if __name__ == "__main__":
    main(sys.argv[1:])
