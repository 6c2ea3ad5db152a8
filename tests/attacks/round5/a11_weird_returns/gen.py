# a11: every function of every exercise returns a value the judge's checks and its diagnosis
# (misconception analysers, pictures, replays, all in the judge's own process) must survive:
# NaN/inf tensors of the right shape, empty tensors, int and bool tensors, nested tuples, huge
# numbers, dicts, None. Each must be a failed test with a one-line reason, never a grader traceback.
import os, re
import itertools
KIT = os.path.join(os.environ.get("LUMEN_KIT", "/work/scratch-attack5"), "exercises")
weird = {
    "nan": "torch.full(_shape(args), float('nan'))",
    "inf": "torch.full(_shape(args), float('inf'))",
    "int": "torch.ones(_shape(args), dtype=torch.int64)",
    "bool": "torch.ones(_shape(args), dtype=torch.bool)",
    "empty": "torch.empty(0)",
    "nested": "((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})",
    "huge": "torch.full(_shape(args), 3e38)",
    "f16": "torch.zeros(_shape(args), dtype=torch.float16)",
}
HEAD = '''import torch

def _shape(args):
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.shape
    return (2, 2)

class _Any(torch.nn.Module):
    def __init__(self, *a, **k):
        super().__init__()
        self.w = torch.nn.Linear(2, 2)
    def forward(self, *args, **kwargs):
        return VALUE
    def update(self, *args, **kwargs):
        return VALUE
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return lambda *args, **kwargs: VALUE

'''
for kind, expr in weird.items():
    os.makedirs(kind, exist_ok=True)
    for name in sorted(os.listdir(KIT)):
        if not name.endswith(".py"):
            continue
        src = open(os.path.join(KIT, name)).read()
        funcs = re.findall(r"^def (\w+)\(", src, re.M)
        classes = re.findall(r"^class (\w+)", src, re.M)
        out = "# a11 (%s): every function returns %s\n" % (kind, expr) + HEAD.replace("VALUE", expr)
        for f in funcs:
            out += f"def {f}(*args, **kwargs):\n    return {expr}\n\n"
        for c in classes:
            out += f"{c} = _Any\n"
        open(os.path.join(kind, name), "w").write(out)
