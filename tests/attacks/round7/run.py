#!/usr/bin/env python3
"""Re-run every attack and its control once and print the tiers.

    LUMEN_KIT=/path/to/kit LUMEN_PY=/path/to/venv/bin/python python3 run.py

Each line: attack, side (attack/control), exercise, tier id, worst ratio, perf points earned of 10,
the per-case ratios; CRASH and the last line of stderr where the grader printed a traceback.
Timings are noisy: run it several times (the README's verdicts come from >= 5 runs each)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.environ.get("LUMEN_KIT", "/work/scratch-attack7")
PY = os.environ.get("LUMEN_PY", os.path.join(KIT, ".venv", "bin", "python"))
ATTACKS = [  # (folder, exercise)
    ("a01_clock_overflow_crash", "exercise3"),
    ("a02_clock_lie_ex4", "exercise4"),
    ("a03_memoise_causal_mask", "exercise4"),
    ("a04_hog_thread_slows_reference", "exercise3"),
    ("a05_clock_lie_ex3", "exercise3"),
]


def grade(exercise, folder):
    proc = subprocess.run([PY, "-m", "grader", exercise, "--submission", folder, "--perf-points", "10",
                           "--format", "json"], cwd=KIT, capture_output=True, text=True)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        last = (proc.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        return f"CRASH rc={proc.returncode}: {last}"
    ex = report["exercises"][0]
    tier = ex.get("tier") or {}
    perf = next((t["score"] for t in ex["tests"] if t["name"] == "performance tier"), None)
    cases = [c.get("ratio") for c in tier.get("cases", [])]
    return f"{tier.get('id')} ratio={tier.get('ratio')} perf={perf}/10 tests={ex['score']}/{ex['max_score']} cases={cases}"


for name, exercise in ATTACKS:
    for side in ("attack", "control"):
        folder = os.path.join(HERE, name, side)
        print(f"{name:34s} {side:8s} {exercise:10s} {grade(exercise, folder)}", flush=True)
