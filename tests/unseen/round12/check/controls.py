"""Sanity check of the corpus' 'one mistake' claim: a control built from the same correct building blocks
that the wrong files share (spec/exN.py *_OK strings) must pass every check. Controls are written under
check/controls/ and are not part of the corpus."""
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build  # noqa: E402
import check  # noqa: E402
from common import load  # noqa: E402

OK = {
    1: ["PROJECT_OK", "FUSED_OK"], 2: None, 3: ["SCALE_OK", "SCALED_OK"],
    4: ["CAUSAL_OK", "APPLY_OK", "PAD_OK"], 5: ["SOFTMAX_OK", "SDPA_OK"],
    6: ["SPLIT_OK", "MERGE_OK", "INIT_OK", "FWD_OK"], 7: ["REPEAT_OK", "INIT_OK", "FWD_OK"],
    8: ["BYTES_OK", "INIT_OK", "LEN_OK", "RESET_OK", "UPDATE_OK", "FWD_OK"],
    9: ["REP_OK", "PREV_OK", "IND_OK", "FIND_OK"], 10: ["COST_OK", "CROSS_OK", "ONLINE_OK", "TILED_OK"],
}
bad = 0
for n, names in OK.items():
    spec = importlib.import_module(f"spec.ex{n}")
    bodies = ["return q @ k.transpose(-2, -1)\n"] if names is None else [getattr(spec, x) for x in names]
    text = build.build_one(n, open(os.path.join(build.SRC, spec.STUB)).read(),
                           dict(name="control", kind="honest", method="control", bodies=bodies))
    d = os.path.join(HERE, "controls")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"control_ex{n}.py")
    open(path, "w").write(text)
    R, smoke = getattr(check, f"ex{n}")(load(path))
    print(f"exercise{n} control: {len(R.results) - len(R.failed)}/{len(R.results)} passed", R.failed)
    bad += bool(R.failed)
print("controls failing:", bad)
