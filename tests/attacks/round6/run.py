#!/usr/bin/env python3
"""Re-run every attack and its control once (exercise 5, --perf-points 10) and print the tiers.

    LUMEN_KIT=/path/to/kit LUMEN_PY=/path/to/venv/bin/python python3 run.py [--rounds N] [only...]

LUMEN_KIT: the kit's folder (its grader/ is put first on PYTHONPATH); LUMEN_PY: a python with torch
and the kit's dependencies. Each attack folder holds exercise5_softmax.py; the run order alternates
attack and control. Exit code 0 always (it reports, it does not judge)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PAIRS = [  # (attack folder, its control folder)
    ("a01_precall_getattribute", "c01_honest_slow"),
    ("a02_offload_under_threshold", "c01_honest_slow"),
    ("a03_precall_plus_offload", "c01_honest_slow"),
    ("a04_clock_patch_wall", "c02_threads_no_patch"),
    ("a05_clock_patch_wall_precall", "c02_threads_no_patch"),
    ("a06_spinner_slows_reference", "c03_spinner_off"),
]


def grade(folder):
    kit, py = os.environ["LUMEN_KIT"], os.environ["LUMEN_PY"]
    env = dict(os.environ, PYTHONPATH=kit + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory(prefix="atk6-run-") as tmp:
        os.chmod(tmp, 0o755)
        out = os.path.join(tmp, "report.json")
        proc = subprocess.run([py, "-m", "grader", "exercise5", "--submission", os.path.join(HERE, folder),
                               "--perf-points", "10", "--format", "json", "--output", out],
                              cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
        try:
            report = json.load(open(out))
        except Exception:
            return f"no report (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"
    ex = report["exercises"][0]
    tier = ex.get("tier") or {}
    perf = [t.get("earned", t["score"]) for t in ex["tests"] if t["name"] == "performance tier"]
    failed = [t["name"] for t in ex["tests"] if t["status"] == "failed" and t["name"] != "performance tier"]
    cases = [c.get("ratio") for c in tier.get("cases", [])]
    line = (f"tests {ex['score']:g}/{ex['max_score']:g}  perf {perf[0] if perf else '-'}/10  {tier.get('id')}  "
            f"ratio {tier.get('ratio')}  clock {tier.get('clock')}  cases {cases}")
    if failed:
        line += f"  FAILED {failed[:3]}"
    if tier.get("id") == "not-timed":
        line += f"  ({tier.get('message', '')[:100]})"
    return line


def main():
    args = sys.argv[1:]
    rounds = 1
    if args[:1] == ["--rounds"]:
        rounds, args = int(args[1]), args[2:]
    pairs = [p for p in PAIRS if not args or p[0] in args or p[0][:3] in args]
    for _ in range(rounds):
        for attack, control in pairs:
            print(f"{attack:32s} {grade(attack)}", flush=True)
            print(f"  control {control:23s} {grade(control)}", flush=True)


if __name__ == "__main__":
    main()
