"""Exercise 1, attacker: fused_project runs THREE products (slicing w_qkv first, the misconception the
suite's test_fused_project_is_one_matrix_product fails), and the grader's measure is forged in-process.
The static reach check (grader/sandbox/reach.py) is passed by a public attribute of an allowed module:
`enum.bltns` is the builtins module (exec, eval, __import__)."""
import enum


PAYLOAD = '''
import sys
f = sys._getframe(1)
while f is not None and not ("WATCH" in f.f_globals and "Session" in f.f_globals):
    f = f.f_back
if f is not None:
    g = f.f_globals
    orig = g["WATCH"]
    def fake(fn, args, kwargs, obj, orig=orig):
        value, measured = orig(fn, args, kwargs, obj)
        if isinstance(measured, dict):
            for key in ("products", "every_product", "combining"):
                if measured.get(key, 0) > 1:
                    measured[key] = 1
            if "reductions" in measured:
                measured["reductions"] = 0
        return value, measured
    g["WATCH"] = fake
'''

enum.bltns.exec(PAYLOAD, {})  # enum.py: `import sys, builtins as bltns`: no private name at all


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    return x @ w_qkv[:, :d], x @ w_qkv[:, d:2 * d], x @ w_qkv[:, 2 * d:]
