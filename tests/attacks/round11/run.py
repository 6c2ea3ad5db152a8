#!/usr/bin/env python3
"""Rerun the attacks of this folder against a Lumen kit.

env LUMEN_KIT: the kit's folder (the grader is run from there as `python -m grader`);
env LUMEN_PY: its python (default: $LUMEN_KIT/.venv-u/bin/python).
Usage: run.py [aNN ...] [--runs N] [--as root|nobody|both]
Each attack folder aNN holds base/<file> and trick/<file>; both are graded alternately, N times
each, as root and as uid 65534 (setpriv), and one JSON line per run is printed with what matters
(points, tier id, ratio, memory verdicts, failed tests).
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.environ.get("LUMEN_KIT", "/work/scratch-attack11")
PY = os.environ.get("LUMEN_PY", os.path.join(KIT, ".venv-u/bin/python"))
EXERCISE = {"exercise1": "exercise1_projection.py", "exercise2": "exercise2_scoring.py",
            "exercise3": "exercise3_scaling.py", "exercise4": "exercise4_masking.py",
            "exercise5": "exercise5_softmax.py", "exercise6": "exercise6_multihead.py",
            "exercise7": "exercise7_gqa.py", "exercise8": "exercise8_kv_cache.py",
            "exercise9": "exercise9_head_patterns.py", "exercise10": "exercise10_tiled_attention.py"}
BY_FILE = {v: k for k, v in EXERCISE.items()}


def grade(file, who, extra=()):
    exercise = BY_FILE[os.path.basename(file)]
    work = tempfile.mkdtemp(prefix="lumen-a11-")
    os.chmod(work, 0o777)
    sub = os.path.join(work, "sub"); os.mkdir(sub); os.chmod(sub, 0o755)
    shutil.copy(file, sub); os.chmod(os.path.join(sub, os.path.basename(file)), 0o644)
    tmp = os.path.join(work, "tmp"); os.mkdir(tmp); os.chmod(tmp, 0o777)
    home = os.path.join(work, "home"); os.mkdir(home); os.chmod(home, 0o777)
    cmd = [PY, "-m", "grader", exercise, "--submission", sub, "--format", "json", *extra]
    env = {"HOME": home, "PATH": "/usr/bin:/bin", "TMPDIR": tmp}
    if who == "nobody":
        os.chown(home, 65534, 65534); os.chown(tmp, 65534, 65534)
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "-i",
               *(f"{k}={v}" for k, v in env.items()), *cmd]
        env = None
    else:
        env = {**env}
    t = time.time()
    p = subprocess.run(cmd, cwd=KIT, env=env, capture_output=True, text=True, timeout=600)
    wall = time.time() - t
    shutil.rmtree(work, ignore_errors=True)
    try:
        report = json.loads(p.stdout)
    except Exception:
        return {"error": (p.stdout[-500:] + p.stderr[-1500:])}
    ex = report["exercises"][0]
    tier = ex.get("tier") or {}
    out = {"points": f"{ex.get('score')}/{ex.get('max_score')}",
           "containment": report.get("containment"),
           "tier": tier.get("id"), "ratio": tier.get("ratio"), "clock": tier.get("clock"), "wall_s": round(wall, 1)}
    if "memory" in tier:
        out["memory"] = tier["memory"].get("verdict")
        out["memory_bytes"] = tier["memory"].get("bytes")
    if "complexity" in tier:
        out["complexity"] = tier["complexity"].get("verdict")
    if tier.get("id") == "not-timed":
        out["message"] = tier.get("message", "")[:300]
    failed = [t.get("name") for t in ex.get("tests", []) if t.get("status") not in ("passed", "skipped")]
    if ex.get("error"):
        out["error"] = str(ex["error"])[:300]
    if failed:
        out["failed"] = failed
        out["failed_msgs"] = [str(t.get("message", ""))[:200] for t in ex.get("tests", []) if t.get("status") not in ("passed", "skipped")][:3]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("attacks", nargs="*")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--as", dest="who", default="both", choices=["root", "nobody", "both"])
    ap.add_argument("--only", choices=["base", "trick"], default=None)
    args = ap.parse_args()
    attacks = args.attacks or sorted(d for d in os.listdir(HERE) if d.startswith("a") and os.path.isdir(os.path.join(HERE, d)))
    whos = ["root", "nobody"] if args.who == "both" else [args.who]
    for attack in attacks:
        extra = []
        flags = os.path.join(HERE, attack, "flags")
        if os.path.exists(flags):
            extra = open(flags).read().split()
        for who in whos:
            for run in range(args.runs):
                for kind in (["base", "trick"] if args.only is None else [args.only]):
                    folder = os.path.join(HERE, attack, kind)
                    if not os.path.isdir(folder):
                        continue
                    file = os.path.join(folder, os.listdir(folder)[0])
                    result = grade(file, who, extra)
                    print(json.dumps({"attack": attack, "who": who, "run": run, "kind": kind, **result}), flush=True)


if __name__ == "__main__":
    main()
