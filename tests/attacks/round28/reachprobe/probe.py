import sys; sys.path.insert(0, '/work/scratch21')
from grader.sandbox import reach
cases = {
 "import sys as s; s.modules": "import sys as s\ns.modules['gc']\ns.getprofile()\n",
 "from sys import modules, settrace, getprofile": "from sys import modules, settrace, getprofile\n",
 "self-private on any object": "import torch\ndef p(self):\n    return self._C\nC = p(torch)\n",
 "bound shadow getattr computed": "def _(getattr): pass\nimport torch\nf = getattr(torch, 'soft' + 'max')\n",
 "bound shadow open/exec/vars/globals": "def _(open, exec, vars, globals, compile, id): pass\nexec('x=1')\ng = globals()\n",
 "match class pattern": "match f:\n    case object(__globals__=g, __code__=c): pass\n",
 "string.Formatter.get_field": "import string\nstring.Formatter().get_field('0.__globals__', (f,), {})\n",
 "typing.get_type_hints": "import typing\ndef h(x: \"__import__('sys')\"): pass\ntyping.get_type_hints(h)\n",
 "functools.singledispatch string annotation": "import functools\n@functools.singledispatch\ndef f(a): pass\n@f.register\ndef _(a: \"__import__('os').system\"): pass\n",
 "torch.utils.benchmark Timer stmt": "import torch.utils.benchmark as b\nb.Timer(stmt=\"__import__('sys')\").timeit(1)\n",
 "numpy load pickle": "import numpy as np\nnp.load(f, allow_pickle=True)\n",
 "torch.load": "import torch\ntorch.load(f, weights_only=False)\n",
 "torch.library override": "import torch\nlib = torch.library.Library('aten', 'IMPL')\n",
 "collections namedtuple/ dataclass": "import dataclasses\ndataclasses.make_dataclass('X', ['a'])\n",
 "torch.fx / jit CompilationUnit": "import torch\ntorch.jit.CompilationUnit('def f(x):\\n    return x')\n",
 "torch.compiler/ torch.compile": "import torch\ntorch.compile(lambda x: x)\n",
 "class kwarg metaclass": "class M(type): pass\nclass X(metaclass=M): pass\n",
 "__class__ assign to module": "import torch\nclass P(type(torch)): pass\n",
 "lambda default frame": "import typing\n",
 "einops": "import einops\neinops.rearrange\n",
 "torch.ops.aten public": "import torch\ntorch.ops.aten.softmax.int\n",
 "numpy.testing.extbuild": "import numpy.testing\nnumpy.testing.extbuild\n",
 "torch.overrides": "import torch\ntorch.overrides.TorchFunctionMode\n",
 "unicode sys": "import ｓｙｓ as s\n",
 "main block hides (no __name__ bound)": "if __name__ == '__main__':\n    import ctypes\n",
 "warnings.catch_warnings module kw": "import warnings\nwarnings.catch_warnings(module=None)\n",
}
for k, v in cases.items():
    try:
        r = reach.reaches(v)
    except Exception as e:
        r = f"CRASH {type(e).__name__}: {e}"
    print(f"{k:45s} -> {r}")
