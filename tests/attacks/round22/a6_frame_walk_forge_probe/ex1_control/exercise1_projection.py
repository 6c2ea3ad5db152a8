"""ATTACK a6 (exercise 1): three separate products with @; the probe replaced by a forger that reports one."""
import torch
# ---- the forger (shared text, pasted at the top of each submission) ----
def _grader_globals(name):
    """The globals of the grader's module `name`, from the frames that are running this import."""
    try:
        raise ValueError
    except ValueError as e:
        f = e.__traceback__.tb_frame
    while f is not None:
        if f.f_globals.get("__name__") == name:
            return f.f_globals
        f = f.f_back
    return None


def _install_forger(fake_found):
    g = _grader_globals("grader.sandbox.child")
    if g is None or not g.get("MEASURED_CALL"):
        return False

    def forged(obj, fn, args, kwargs, method):
        value = fn(*args, **(kwargs or {}))  # unmeasured
        return value, {"bytes": 0, "shape": [], "products": 1, "ops": 1, "shapes": [], "elements": 0,
                       "element_shape": [], "peak": 0, "disabled": None, **fake_found(fn, args, kwargs)}

    g["MEASURED_CALL"][0] = forged
    return True
# ---- end of the forger ----


FORGED = False  # CONTROL: no forger


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    return x @ w_qkv[:, :d], x @ w_qkv[:, d:2 * d], x @ w_qkv[:, 2 * d:]  # THREE products
