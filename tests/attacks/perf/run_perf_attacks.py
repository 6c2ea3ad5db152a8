#!/usr/bin/env python3
"""Grade every performance-tier attack and its controls with a kit's `lumen-grade`; print a table.

    python run_perf_attacks.py KIT_PATH --python PYTHON [--only NAME ...] [--json-out FILE]

Only the kit's command line and its JSON report are used (`--format json` when the kit's --help
offers it, else the text report is read), so the kit's internals may differ from the one these
attacks were written against. Gradings run one at a time.

An attack FORGES when it gets a better tier or more perf points than its honest slow control (the
same slow code without the trick), or any perf points while it gives wrong answers on the timed
calls. Otherwise it is "held". Exit status: 0 when every attack is held, 1 when any forges.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ATTACKS = HERE / "attacks"
PERF_POINTS = 10

# attack -> (its honest slow control, whether its answers on the timed calls are wrong)
ATTACK_TABLE = {
    "ex2_empty_after_first_call": ("slow2", True),
    "ex2_memo_last_input": ("slow2", False),
    "ex2_memo_data_ptr": ("slow2", True),
    "ex2_precompute_from_grader_frames": ("slow2", False),
    "ex3_stack_sniff_clock": ("slow3", True),
    "ex3_memo_fingerprint": ("slow3", False),
    "ex3_patch_time_module": ("slow3", False),
    "ex3_patch_grader_clock_x20": ("slow3", False),
    "ex3_patch_grader_clock_within07": ("slow3_mild", False),
    "ex5_request_action_sniff": ("slow5", True),
    "ex5_memo_fingerprint": ("slow5", False),
    "ex5_stale_after_two_calls": ("slow5", True),
    "ex5_busy_thread_thrash": ("slow5", False),
    "ex6_zeros_after_first_call": ("slow6", True),
    "ex6_memo_last_input": ("slow6", False),
    "ex6_precompute_from_grader_frames": ("slow6", False),
}
CONTROLS = ["honest2", "slow2", "honest3", "slow3", "slow3_mild", "honest5", "slow5", "honest6", "slow6"]

TIER_ORDER = ["on-par", "3x", "10x", "30x", "100x"]  # best first; anything else ranks below these
TEXT_TIERS = [("on par", "on-par"), ("about 3×", "3x"), ("about 10×", "10x"), ("about 30×", "30x"),
              ("100×", "100x"), ("not timed", "not-timed")]


def exercise_of(folder):
    """(exercise id, file) of the one exerciseN_*.py in an attack's folder."""
    files = sorted(folder.glob("exercise*_*.py"))
    if len(files) != 1:
        raise SystemExit(f"{folder}: expected one exerciseN_*.py file, found {len(files)}")
    return re.match(r"(exercise\d+)_", files[0].name).group(1), files[0]


class Kit:
    """The kit's command line, run with --python's interpreter, the kit's own tree first on the path."""

    def __init__(self, kit, python):
        python = shutil.which(python) or python
        self.kit, self.python = Path(kit).resolve(), os.path.abspath(python)  # not resolve(): keep the venv's path
        python = self.python
        script = Path(python).parent / "lumen-grade"
        self.command = [str(script)] if script.exists() else [python, "-m", "grader"]
        self.env = {**os.environ, "NO_COLOR": "1",
                    "PYTHONPATH": os.pathsep.join(filter(None, [str(self.kit), os.environ.get("PYTHONPATH")]))}
        self.help = self._run(["exercise2", "--help"], timeout=120).stdout
        self.json = "--format" in self.help and "json" in self.help
        self.options = ["--perf-points", str(PERF_POINTS)] if "--perf-points" in self.help else []

    def _run(self, args, timeout):
        return subprocess.run(self.command + args, capture_output=True, text=True, env=self.env,
                              cwd=self.kit, timeout=timeout)

    def grade(self, exercise, folder, timeout=900):
        """{tier, ratio, clock, points, score, max, note} of one submission folder."""
        args = [exercise, "--submission", str(folder), *self.options]
        try:
            done = self._run(args + (["--format", "json"] if self.json else ["--no-color", "-v"]), timeout)
        except subprocess.TimeoutExpired:
            return {"tier": "error", "note": f"grading ran past {timeout} s"}
        if self.json:
            try:
                return from_json(json.loads(done.stdout), exercise)
            except (ValueError, KeyError, TypeError, IndexError) as error:
                return {"tier": "error", "note": f"no JSON report ({error}); rc {done.returncode}: "
                                                 f"{(done.stderr or done.stdout)[-200:]}"}
        return from_text(done.stdout + done.stderr)


def from_json(report, exercise):
    exercises = report["exercises"]
    if isinstance(exercises, dict):
        exercises = [{"id": key, **value} for key, value in exercises.items()]
    entry = next(e for e in exercises if e.get("id") == exercise)
    tier = entry.get("tier") or {}
    perf = [t for t in entry.get("tests", []) if re.search(r"perf|tier", str(t.get("name", "")), re.I)]
    points = sum(float(t.get("score") or 0) for t in perf) if perf else None
    cases = tier.get("cases") or []
    note = tier.get("message", "")[:90] if tier.get("id") in (None, "not-timed") else \
        ", ".join(f"{c.get('ratio')}×/{c.get('clock')}" for c in cases)
    if entry.get("error"):
        note = f"error: {str(entry['error'])[:80]}"
    return {"tier": tier.get("id") or "none", "ratio": tier.get("ratio"), "points": points,
            "score": entry.get("score"), "max": entry.get("max_score"), "note": note}


def from_text(text):
    """The tier and points read from the text report (a kit without --format json)."""
    found = next((tier for phrase, tier in TEXT_TIERS if re.search(rf"performance( tier)?: {phrase}", text)), "none")
    ratio = re.search(r"— ([\d.]+)× its time", text)
    score = re.search(r"(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)\s", text)
    points = re.search(r"(\d+(?:\.\d+)?)/\d+(?:\.\d+)?\s+performance tier", text)
    return {"tier": found, "ratio": float(ratio.group(1)) if ratio else None,
            "points": float(points.group(1)) if points else None,
            "score": float(score.group(1)) if score else None, "max": float(score.group(2)) if score else None,
            "note": "text report"}


def rank(result):
    tier = result["tier"]
    return TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER)


def judge(result, control, wrong):
    """FORGED or held, and why."""
    points, control_points = result.get("points") or 0.0, control.get("points") or 0.0
    reasons = []
    if rank(result) < rank(control):
        reasons.append("better tier")
    if points > control_points:
        reasons.append("more points")
    if wrong and points > 0:
        reasons.append("points for wrong answers")
    return ("FORGED (" + ", ".join(reasons) + ")") if reasons else "held"


def fmt_points(value):
    return "-" if value is None else f"{value:g}/{PERF_POINTS}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kit", help="the kit's folder (its grader is put first on PYTHONPATH)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose environment has the kit "
                        "installed (its lumen-grade script is used when it sits beside it)")
    parser.add_argument("--only", nargs="*", help="grade only these attacks (and their controls) or controls")
    parser.add_argument("--json-out", help="also write every result to this JSON file")
    args = parser.parse_args()

    kit = Kit(args.kit, args.python)
    attacks = {name: spec for name, spec in ATTACK_TABLE.items() if not args.only or name in args.only}
    wanted = [c for c in CONTROLS if not args.only or c in args.only or c in {spec[0] for spec in attacks.values()}]
    print(f"kit {kit.kit}; command {' '.join(kit.command)}; report {'json' if kit.json else 'text'}; "
          f"options {' '.join(kit.options) or '(no --perf-points)'}", flush=True)

    results = {}
    for name in wanted + list(attacks):
        exercise, _ = exercise_of(ATTACKS / name)
        results[name] = {"exercise": exercise, **kit.grade(exercise, ATTACKS / name)}
        r = results[name]
        print(f"  graded {name}: {r['tier']} {r.get('ratio')} points {fmt_points(r.get('points'))}", flush=True)

    header = ("attack", "exercise", "tier", "ratio", "perf points", "control", "control tier", "verdict", "clocks")
    rows = []
    for name in wanted:
        r = results[name]
        rows.append((name, r["exercise"], r["tier"], str(r.get("ratio")), fmt_points(r.get("points")), "-", "-",
                     "control", r.get("note", "")))
    for name, (control, wrong) in attacks.items():
        r, c = results[name], results[control]
        rows.append((name + (" [wrong answers]" if wrong else ""), r["exercise"], r["tier"], str(r.get("ratio")),
                     fmt_points(r.get("points")), control, c["tier"], judge(r, c, wrong), r.get("note", "")))
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
    forged = [name for name, (control, wrong) in attacks.items()
              if judge(results[name], results[control], wrong) != "held"]
    print(f"\n{len(forged)} of {len(attacks)} attacks forge: {', '.join(forged) or 'none'}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1))
    return 1 if forged else 0


if __name__ == "__main__":
    sys.exit(main())
