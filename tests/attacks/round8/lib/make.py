"""make.py SOLUTION OUTDIR REPS TARGETS [TRICKFILE]: the solution made REPS× slower (each target redoes its
work REPS times), with TRICKFILE appended (the attack) or not (the control)."""
import os, sys
sol, out, reps, targets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
trick = sys.argv[5] if len(sys.argv) > 5 else None
src = open(sol).read()
src += "\n\n# ---- made slower on purpose: every call redoes its work %d times ----\n" % reps
for t in targets:
    src += f"""
_slow_base_{t} = {t}
if isinstance(_slow_base_{t}, type):
    _slow_fwd_{t} = _slow_base_{t}.forward
    def _slow_forward_{t}(self, *a, **k):
        for _ in range({reps} - 1):
            _slow_fwd_{t}(self, *a, **k)
        return _slow_fwd_{t}(self, *a, **k)
    _slow_base_{t}.forward = _slow_forward_{t}
else:
    def {t}(*a, **k):
        for _ in range({reps} - 1):
            _slow_base_{t}(*a, **k)
        return _slow_base_{t}(*a, **k)
"""
if trick:
    src += f"\n_TRICK_TARGETS = {targets!r}\n" + open(trick).read()
os.makedirs(out, exist_ok=True)
open(os.path.join(out, os.path.basename(sol)), "w").write(src)
