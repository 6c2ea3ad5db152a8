#!/usr/bin/env python3
"""Rerun the attacks of this folder against the Lumen kit, alternating baseline and trick.

python3 run.py [ids...] [--runs N] [--keep DIR]

$LUMEN_KIT: the kit (default /work/scratch-attack10); $LUMEN_PY: its python (default
$LUMEN_KIT/.venv/bin/python). Each attack is a folder aNN/ with base/ and trick/, each holding one
exercise file that replaces the solution's in a copy of the kit's solutions/; attacks.json says
which exercise. HELD/BROKEN is decided from the JSON reports only:

- outcome rank per run: the tier's rank (on-par 0 ... 100x 4), with the memory verdict as a
  tie-break (exercise 8: preallocated < oversized < reallocates; exercise 10: tiled < quadratic),
  'not-timed' = caught (worse than anything, except 'too busy', reported apart);
- a run pair (baseline i, trick i) is a WIN for the trick when the trick's score is higher, or its
  (tier rank, memory rank) is lower at no lower score, or the trick's report holds a grader error;
- BROKEN when the trick wins in a strict majority of pairs; otherwise HELD. A trick whose
  report says 'too busy' or 'tamper'/'probe was disabled'/'answered differently' in a majority is
  HELD (caught), as the brief says.
"""
import json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.environ.get("LUMEN_KIT", "/work/scratch-attack10")
PY = os.environ.get("LUMEN_PY", os.path.join(KIT, ".venv", "bin", "python"))
RANK = {"on-par": 0, "3x": 1, "10x": 2, "30x": 3, "100x": 4}
MEM = {"preallocated": 0, "linear": 0, "tiled": 0, "oversized": 1, "reallocates": 2, "quadratic": 2, "disabled": 3}
CAUGHT = ("answered differently", "tamper", "probe was disabled", "not allowed", "forbidden")


def grade(exercise, fname, student_file, as_user=False):
    work = tempfile.mkdtemp(prefix="lumen-a10-")
    os.chmod(work, 0o755)
    sub = os.path.join(work, "sub")
    shutil.copytree(os.path.join(KIT, "solutions"), sub)
    shutil.copy(student_file, os.path.join(sub, fname))
    out = os.path.join(work, "out.json")
    cmd = [PY, "-m", "grader", f"exercise{exercise}", "--submission", sub, "--format", "json", "--output", out]
    if as_user:
        subprocess.run(["chmod", "-R", "a+rwX", work])
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "-i", "HOME=/tmp/u65534",
               "PATH=/usr/bin:/bin", *cmd]
    proc = subprocess.run(cmd, cwd=KIT, capture_output=True, text=True, timeout=600)
    try:
        with open(out) as f:
            report = json.load(f)
    except Exception:
        report = None
    shutil.rmtree(work, ignore_errors=True)
    return summarize(report, exercise, proc)


def summarize(report, exercise, proc):
    if report is None:
        return {"tier": "no-report", "rank": 9, "mem": 9, "score": -1, "error": (proc.stderr or "")[-300:], "msg": ""}
    ex = next(e for e in report["exercises"] if str(e["id"]).endswith(str(exercise)) or e["id"] == f"exercise{exercise}")
    tier = ex.get("tier") or {}
    tid = tier.get("id", "none")
    mem = (tier.get("memory") or {}).get("verdict")
    msg = tier.get("message", "") or ""
    failed = [t["name"] for t in ex.get("tests", []) if t.get("status") == "failed"]
    failed_msgs = [t.get("message", "")[:300] for t in ex.get("tests", []) if t.get("status") == "failed"]
    return {"tier": tid, "ratio": tier.get("ratio"), "mem": MEM.get(mem, 0) if mem else 0, "mem_verdict": mem,
            "rank": RANK.get(tid, 8), "score": ex.get("score"), "max": ex.get("max_score"),
            "error": ex.get("error") or ("Traceback" in (proc.stderr or "") and proc.stderr[-300:]) or None,
            "msg": msg, "failed": failed, "failed_msgs": failed_msgs}


def short(s):
    r = f"{s['tier']}" + (f"({s['ratio']:.2f})" if s.get("ratio") else "")
    if s.get("mem_verdict"):
        r += f"/{s['mem_verdict']}"
    return r + f" {s['score']}/{s.get('max')}pts"


def falsely_accused(base, trick):
    """For an honest rewrite (kind "honest"): the grader calls it tampering, or takes points off it,
    where the solution it rewrites gets none of that."""
    notes = " ".join([trick["msg"], *trick.get("failed_msgs", [])])
    return bool(trick["error"]) or any(word in notes for word in CAUGHT) or (
        trick["score"] is not None and base["score"] is not None and trick["score"] < base["score"])


def wins(base, trick):
    if trick["error"] and not base["error"]:
        return True
    if trick["tier"] == "not-timed" or any(word in trick["msg"] for word in CAUGHT):
        return False
    if trick["score"] is not None and base["score"] is not None and trick["score"] > base["score"]:
        return True
    if trick["score"] is not None and base["score"] is not None and trick["score"] < base["score"]:
        return False
    return (trick["rank"], trick["mem"]) < (base["rank"], base["mem"])


def main(argv):
    runs = 5
    if "--runs" in argv:
        i = argv.index("--runs"); runs = int(argv[i + 1]); del argv[i:i + 2]
    with open(os.path.join(HERE, "attacks.json")) as f:
        attacks = json.load(f)
    ids = argv or sorted(attacks)
    for aid in ids:
        a = attacks[aid]
        folder = a.get("same_as", aid)  # aNNu: aNN's files, graded as an unprivileged user (uid 65534)
        base_f = os.path.join(HERE, folder, "base", a["file"])
        trick_f = os.path.join(HERE, folder, "trick", a["file"])
        pairs = []
        for _ in range(runs):
            b = grade(a["exercise"], a["file"], base_f, a.get("as_user", False))
            t = grade(a["exercise"], a["file"], trick_f, a.get("as_user", False))
            pairs.append((b, t))
        judge = falsely_accused if a.get("kind") == "honest" else wins
        won = sum(judge(b, t) for b, t in pairs)
        verdict = "BROKEN" if won * 2 > runs else "HELD"
        busy = sum("too busy" in t["msg"] for _, t in pairs)
        if verdict == "HELD" and busy * 2 > runs:
            verdict = "HELD (excused: 'not timed: too busy' instead of the baseline's tier)"
        print(f"{aid} ex{a['exercise']} {verdict} ({won}/{runs} runs trick better) | base: "
              + ", ".join(short(b) for b, _ in pairs) + " | trick: " + ", ".join(short(t) for _, t in pairs)
              + (f" | trick note: {pairs[-1][1]['msg'][:160]}" if pairs[-1][1]["tier"] == "not-timed" else "")
              + (f" | trick failed: {pairs[-1][1]['failed']} {pairs[-1][1]['failed_msgs'][:1]}" if pairs[-1][1].get("failed") else "")
              + (f" | base failed: {pairs[-1][0]['failed']}" if pairs[-1][0].get("failed") else ""), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
