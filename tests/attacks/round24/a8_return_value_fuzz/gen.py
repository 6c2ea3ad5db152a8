import sys, os, shutil
weird = {
 "empty": "_t.zeros(0)", "nan": "_t.full((2,3), float('nan'))", "boolscalar": "_t.tensor(True)",
 "dims16": "_t.zeros((1,)*16)", "zerohuge": "_t.zeros(0, 2**40)", "f16": "_t.zeros(3,4,dtype=_t.float16)",
 "ragged": "[[1,2],[3]]", "dict": "{'a': 1}", "obj": "object()", "str": "'x'*5000", "bigint": "10**30",
 "ninf": "_t.full((2,4,4), float('-inf'))", "int64": "_t.ones(2,4,4,dtype=_t.int64)", "tuple100": "tuple(_t.zeros(2) for _ in range(100))",
 "nanfloat": "float('nan')", "uint8": "_t.zeros(2,4,4,dtype=_t.uint8)", "negzero": "-0.0", "none": "None",
 "bf16big": "_t.full((2,3,4,4), 3e38, dtype=_t.bfloat16)", "ident": "(_a[0] if _a else None)", "gen": "_t.Generator()",
 "dtype": "_t.float32", "nested": "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]",
}
tail = '''
import torch as _t
def _mk():
    return lambda *_a, **_k: (%s)
for _n, _f in list(globals().items()):
    if _n.startswith('_') or getattr(_f, '__module__', None) != __name__: continue
    if isinstance(_f, type) and issubclass(_f, _t.nn.Module):
        _g = _mk(); _f.forward = lambda self, *_a, **_k: _g(*_a, **_k)
    elif callable(_f) and not isinstance(_f, type):
        globals()[_n] = _mk()
'''
for name, expr in weird.items():
    d = f"/work/round24/a8_return_value_fuzz/sub_{name}"; os.makedirs(d, exist_ok=True)
    for f in [x for x in os.listdir("/work/scratch20/solutions") if x.endswith(".py")]:
        src = open(f"/work/scratch20/solutions/{f}").read()
        open(f"{d}/{f}", "w").write(src + tail % expr)
