"""Re-run every attack and its control once and print the tiers.

LUMEN_KIT: the kit's folder (with lumen-grade installed in LUMEN_PY's environment);
LUMEN_PY: the python of that environment. Usage: LUMEN_KIT=... LUMEN_PY=... python3 run.py
"""
import json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.environ.get("LUMEN_KIT", "/work/scratch-attack8")
PY = os.environ.get("LUMEN_PY", os.path.join(KIT, ".venv/bin/python"))
RUNS = [  # (attack folder, sub-folder, exercise)
    ("a01_poll_socket_between_requests", "attack", "exercise6"),
    ("a01_poll_socket_between_requests", "control", "exercise6"),
    ("a02_timer_pest_thread", "attack_2x", "exercise6"),
    ("a02_timer_pest_thread", "control_2x", "exercise6"),
    ("a02_timer_pest_thread", "attack", "exercise6"),
    ("a02_timer_pest_thread", "control", "exercise6"),
    ("a02_timer_pest_thread", "attack_ex10", "exercise10"),
    ("a02_timer_pest_thread", "control_ex10", "exercise10"),
    ("a03_forged_allocations_reply_crash", "attack", "exercise10"),
    ("a03_forged_allocations_reply_crash", "control", "exercise10"),
]


def grade(folder, exercise):
    with tempfile.TemporaryDirectory() as tmp:  # a copy the unprivileged child can read
        sub = os.path.join(tmp, "sub")
        shutil.copytree(folder, sub)
        os.chmod(tmp, 0o755)
        proc = subprocess.run([PY, "-m", "grader", exercise, "--submission", sub, "--perf-points", "10",
                               "--format", "json"], cwd=KIT, capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        last = [line for line in proc.stderr.strip().splitlines() if line.strip()][-1:] or ["(no output)"]
        return f"NO REPORT (rc {proc.returncode}): {last[0][:160]}"
    ex = report["exercises"][0]
    tier = ex.get("tier") or {}
    return (f"score {ex['score']}/{ex['max_score']}  tier {tier.get('id')}  ratio {tier.get('ratio')}  "
            f"clock {tier.get('clock')}")


for attack, sub, exercise in RUNS:
    print(f"{attack:38s} {sub:13s} {exercise:10s} {grade(os.path.join(HERE, attack, sub), exercise)}", flush=True)
