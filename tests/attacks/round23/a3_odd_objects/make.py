# writes one exercise3 submission per odd thing scale_scores returns or raises (variants/NAME/exercise3_scaling.py)
import os
HEAD = '''import math, sys, os
import torch

def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))

def _right(scores, d_k):
    return scores / math.sqrt(d_k)
'''
V = {
 "str_loops_forever": '''
class E(Exception):
    def __str__(self):
        while True: pass
def scale_scores(scores, d_k): raise E()
''',
 "str_raises_violation_like": '''
class E(Exception):
    def __str__(self): raise SystemExit(0)
def scale_scores(scores, d_k): raise E()
''',
 "type_name_newlines": '''
E = type("PASSED\\n\\u2713 exercise3  21/21", (Exception,), {})
def scale_scores(scores, d_k): raise E("x")
''',
 "baseexception_subclass": '''
class E(BaseException): pass
def scale_scores(scores, d_k): raise E("x")
''',
 "systemexit_0": '''
def scale_scores(scores, d_k): raise SystemExit(0)
''',
 "os_exit_0": '''
def scale_scores(scores, d_k): os._exit(0)
''',
 "keyboardinterrupt": '''
def scale_scores(scores, d_k): raise KeyboardInterrupt
''',
 "stopiteration_in_gen": '''
def scale_scores(scores, d_k): raise StopIteration
''',
 "deep_nested_list": '''
def scale_scores(scores, d_k):
    x = []
    for _ in range(100000): x = [x]
    return x
''',
 "tensor_17_dims": '''
def scale_scores(scores, d_k): return torch.zeros([1]*17)
''',
 "huge_tensor_200MB": '''
def scale_scores(scores, d_k): return torch.zeros(50_000_000)
''',
 "complex_tensor": '''
def scale_scores(scores, d_k): return _right(scores, d_k).to(torch.complex64)
''',
 "sparse_tensor": '''
def scale_scores(scores, d_k): return _right(scores, d_k).to_sparse()
''',
 "meta_tensor": '''
def scale_scores(scores, d_k): return torch.empty_like(scores, device="meta")
''',
 "nested_tensor": '''
def scale_scores(scores, d_k): return torch.nested.nested_tensor([_right(scores, d_k)])
''',
 "parameter_subclass": '''
def scale_scores(scores, d_k): return torch.nn.Parameter(_right(scores, d_k))
''',
 "dict_with_obj_keys": '''
class K:
    def __str__(self): raise RuntimeError("no")
def scale_scores(scores, d_k): return {K(): 1}
''',
 "list_subclass_lying_len": '''
class L(list):
    def __iter__(self): return iter([_LAST[0]])
    def __len__(self): return 10**9
_LAST = [None]
def scale_scores(scores, d_k):
    _LAST[0] = _right(scores, d_k); return L()
''',
 "object_eq_true": '''
class T:
    def __eq__(self, o): return True
    def __getattr__(self, n): return lambda *a, **k: True
def scale_scores(scores, d_k): return T()
''',
 "nan_everywhere": '''
def scale_scores(scores, d_k): return torch.full_like(scores, float("nan"))
''',
 "sigstop_self": '''
import signal
def scale_scores(scores, d_k): os.kill(os.getpid(), signal.SIGSTOP); return _right(scores, d_k)
''',
 "flood_output_50MB": '''
def scale_scores(scores, d_k):
    sys.stdout.write("A" * (50 << 20)); sys.stdout.flush(); return _right(scores, d_k)
''',
 "recursion": '''
def scale_scores(scores, d_k):
    sys.setrecursionlimit(10**6)
    def f(n): return f(n + 1)
    return f(0)
''',
 "module_getattr_on_name": '''
def __getattr__(name):
    raise SystemExit(0)
''',
}
for name, body in V.items():
    os.makedirs(f"variants/{name}", exist_ok=True)
    open(f"variants/{name}/exercise3_scaling.py", "w").write(HEAD + body)
os.makedirs("variants/control", exist_ok=True)
open("variants/control/exercise3_scaling.py", "w").write(HEAD + "\ndef scale_scores(scores, d_k): return _right(scores, d_k)\n")
