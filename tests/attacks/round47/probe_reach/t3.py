import torch
from grader.sandbox.reach import reaches
snips = {
"logging_basic": "import logging\nlogging.basicConfig(level=logging.INFO)\nlog = logging.getLogger(__name__)\nlog.setLevel(logging.DEBUG)\n",
"warnings_filter": "import warnings\nwarnings.filterwarnings('ignore', category=UserWarning)\nwith warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n",
"type_checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from torch import Tensor\n",
"cached_property": "import functools\nclass C:\n    @functools.cached_property\n    def scale(self): return 1\n",
"jit_script": "import torch\n@torch.jit.script\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return x\n",
"jit_ignore": "import torch\n@torch.jit.ignore\ndef f(x): return x\n",
"sys_stdout_flush": "import sys\nsys.stdout.flush()\n",
"nn_utils": "import torch.nn as nn\nm = nn.Linear(2,2)\nnn.utils.clip_grad_norm_(m.parameters(), 1.0)\n",
"seeded_gen_attr": "import torch\ng = torch.Generator()\nprint(g.initial_seed(), g.get_state())\n",
"einops_pack": "from einops import pack, unpack, reduce\n",
"torch_profiler": "import torch\nwith torch.profiler.profile() as p: pass\n",
"torch_autograd_gradcheck": "import torch\nif __name__ == '__main__':\n    torch.autograd.gradcheck(lambda x: x, (torch.randn(2, dtype=torch.float64, requires_grad=True),))\ntorch.autograd.grad\n",
"torch_func_vmap": "import torch\nf = torch.vmap(lambda x: x)\n",
"tensor_names": "import torch\ndef f(x): return x.refine_names('B', 'L')\n",
"dict_get_method": "def f(d, k):\n    return d.get(k), d.setdefault(k, 0), d.pop(k, None), d.update(a=1)\n",
"str_methods": "def f(s):\n    return s.format(1), s.join([]), s.split(), s.startswith('x'), '{:>4}'.format(3), '%d' % 3\n",
"torch_typing": "import torch\nfrom torch import Tensor\nfrom typing import Optional\nMask = Optional[Tensor]\ndef f(m: Mask = None) -> Tensor: ...\n",
"torch_nn_attention_sdpa_str": "# do not call F.scaled_dot_product_attention\n",
"kwargs_update": "class C:\n    def __init__(self, **kw):\n        for key, value in kw.items():\n            setattr(self, key, value)\n",
"getattr_default": "import torch\ndef f(m):\n    return getattr(m, 'bias', None), getattr(torch, 'float8_e4m3fn', None)\n",
"getattr_str_param": "def get_act(name='relu'):\n    import torch.nn.functional as F\n    return getattr(F, name)\n",
"getattr_dtype": "import torch\ndef to(x, dtype_name):\n    return x.to(getattr(torch, dtype_name))\n",
"named_modules": "import torch.nn as nn\nclass M(nn.Module):\n    def f(self):\n        for name, p in self.named_parameters(): print(name, p.shape)\n        return self.get_submodule('q_proj'), self.get_parameter('q_proj.weight')\n",
"iter_dunder": "class C:\n    def __iter__(self):\n        yield from (self.k, self.v)\n",
"generator_send": "def g():\n    x = yield 1\ngen = g(); next(gen)\n",
"fstring_format_spec": "def f(x): return f'{x!r:>10}' + f'{x:.3e}'\n",
"lambda_default": "fs = [lambda x, i=i: x + i for i in range(3)]\n",
"nonlocal": "def f():\n    n = 0\n    def g():\n        nonlocal n\n        n += 1\n    g(); return n\n",
"torch_tensor_methods_private": "import torch\ndef f(x): return x._base, x._is_view()\n",
}
for name, src in snips.items():
    r = reaches(src)
    print(f"{name:22s}", "OK" if not r else r)
