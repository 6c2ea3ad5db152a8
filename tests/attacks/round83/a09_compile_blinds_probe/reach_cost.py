# reach_cost.py KIND N: how long reach.py (the judge's static check) takes on a generated valid file (run with
# /opt/venv20/bin/python; KIND: attrs, funcs, nested_defs, classes, comprehension, names_loop, getattr_many, scopes)
import sys, time
from grader.sandbox.reach import reaches
kind, n = sys.argv[1], int(sys.argv[2])
if kind == "attrs":
    src = "import torch\n" + "".join(f"x{i} = torch.nn.functional.relu\n" for i in range(n))
elif kind == "funcs":
    src = "import torch\n" + "".join(f"def f{i}(x):\n    y = x\n    return f{i-1}(y) if {i} else y\n" for i in range(n))
elif kind == "nested_defs":
    src = "".join("    " * i + f"def f{i}(a{i}):\n" for i in range(n)) + "    " * n + "return 1\n"
elif kind == "classes":
    src = "".join(f"class C{i}(C{i-1} if {i} else object):\n    a{i} = 1\n    def m(self):\n        return self.a{i}\n" for i in range(n))
elif kind == "comprehension":
    src = "x = [" + " for ".join(["a"] + [f"a{i} in range(2)" for i in range(n)]) + "]\n"
elif kind == "names_loop":
    src = "import torch\nfor name in (" + ", ".join(f"'n{i}'" for i in range(n)) + ",):\n    pass\n"
elif kind == "getattr_many":
    src = "import torch\nclass A:\n    pass\na = A()\n" + "".join(f"v{i} = getattr(a, 'x{i}', None)\n" for i in range(n))
elif kind == "scopes":
    src = "def g():\n" + "".join(f"    x{i} = 1\n    def h{i}():\n        nonlocal x{i}\n        return x{i}\n" for i in range(n))
print(kind, n, len(src), "bytes")
t = time.time(); r = reaches(src); print(f"{time.time()-t:.2f} s", str(r)[:100])
