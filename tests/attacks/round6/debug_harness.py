import sys, json, os
import grader.perf.judge as J
from grader.perf.rounds import median
_orig_time_calls = J._time_calls
def tc(case, *a, **k):
    r = _orig_time_calls(case, *a, **k)
    print("CASE", case.label[:30], json.dumps(r.get("_dbg")), file=sys.stderr)
    return r
_orig_clocks = J._clocks
def clocks(taken, allowance=0):
    t = _orig_clocks(taken, allowance)
    if allowance == 0:
        d = {}
        for name, rounds in taken.items():
            d[name] = dict(own_t=round(1e3*median([r[0][0] for r in rounds]),3), own_p=round(1e3*median([r[0][1] for r in rounds]),3),
                           own_w=round(1e3*median([r[0][2] for r in rounds]),3), waits=median([r[0][3] for r in rounds]),
                           out_cpu=round(1e3*median([r[1][0] for r in rounds]),3), out_w=round(1e3*median([r[1][1] for r in rounds]),3))
        d["E_cpu"] = round(1e3*J._unreported(taken, 1, 0, 0),3); d["E_wall"] = round(1e3*J._unreported(taken, 2, 1, 0),3)
        d["n"] = len(taken["student"])
        t["_dbg"] = d
    return t
J._time_calls = tc
J._clocks = clocks
from grader.cli.main import main
sys.exit(main())
