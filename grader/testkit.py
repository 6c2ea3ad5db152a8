"""Helpers the hidden suites share: seeded inputs, and the reference's float64 answers.

A suite test reads like the check it makes: make inputs, ask the student, ask the reference in
float64, compare with `grader.compare`. Inputs are drawn on the CPU from the test's generator and
then moved, so every device sees the same numbers.
"""

import torch

from grader.compare import Mismatch, check_close, describe


def randn(rng, *shape, dtype=torch.float32, device="cpu", scale=1.0):
    """Standard normal values (times scale) from the test's generator."""
    return (torch.randn(*shape, generator=rng, dtype=torch.float64) * scale).to(device=device, dtype=dtype)


def randint(rng, low, high, *shape, device="cpu"):
    return torch.randint(low, high, shape, generator=rng).to(device)


def as64(value):
    """Float tensors (anywhere in a tuple, list or dict) as CPU float64 copies, for the oracle."""
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", torch.float64) if value.is_floating_point() else value.to("cpu")
    if isinstance(value, (list, tuple)):
        return type(value)(as64(item) for item in value)
    if isinstance(value, dict):
        return {key: as64(item) for key, item in value.items()}
    return value


def reference_grads(fn, args, wrt, upstream):
    """Gradients of fn(*args) w.r.t. args[i] for i in wrt, in float64, for the given upstream."""
    args = list(as64(args))
    for index in wrt:
        args[index] = args[index].clone().requires_grad_(True)
    outputs = fn(*args)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    upstream = upstream if isinstance(upstream, (tuple, list)) else [upstream]
    pairs = [(out, as64(up)) for out, up in zip(outputs, upstream) if up is not None]
    loss = sum((out * up).sum() for out, up in pairs)  # its gradient w.r.t. each out is `up`
    return list(torch.autograd.grad(loss, [args[i] for i in wrt]))


def check_grads(student, name, ref_fn, args, wrt, rng, *, what, names=None):
    """The student's gradients of `name` w.r.t. args[wrt] match the reference's, in the input dtype."""
    expected_out = ref_fn(*as64(args))
    outputs = expected_out if isinstance(expected_out, tuple) else (expected_out,)
    upstream = [randn(rng, *out.shape, dtype=args[wrt[0]].dtype, device=args[wrt[0]].device)
                if out.is_floating_point() else None for out in outputs]
    _, grads, _ = student.backward(name, *args, wrt=wrt, upstream=upstream)
    expected = reference_grads(ref_fn, args, wrt, upstream)
    names = names or [f"argument {i}" for i in wrt]
    for got, want, arg_name in zip(grads, expected, names):
        if got is None:
            raise AssertionError(f"{what}: no gradient reached `{arg_name}`; is it used, and not detached?")
        check_close(got, want, what=f"the gradient of {what} w.r.t. {arg_name}", dtype=args[wrt[0]].dtype)


def check_call(student, name, *args, ref, what=None, dtype=None, output=None, **kwargs):
    """Call the student's `name(*args, **kwargs)` and check it against `ref` run in float64.

    `output` picks one item of a tuple result (e.g. 1 for attention weights). A failure carries
    the call (name, args, kwargs, the student's value) so diagnoses can replay it. Returns the
    student's value.
    """
    got = student.run(name, *args, **kwargs)["value"]
    expected = ref(*as64(args), **as64(kwargs))
    what = what or f"{name}(...)"
    pairs = _outputs(got, expected, output, what)
    try:
        for got_item, expected_item, item_what in pairs:
            check_close(got_item, expected_item, what=item_what, dtype=dtype)
    except Mismatch as mismatch:
        mismatch.details["call"] = {"target": name, "args": args, "kwargs": kwargs, "got": got}
        raise
    return got


def _outputs(got, expected, output, what):
    """(got, expected, description) for each output to compare."""
    if not isinstance(expected, tuple):
        return [(got, expected, what)]
    if not isinstance(got, (tuple, list)) or len(got) != len(expected):
        raise Mismatch(f"{what} returned {describe(got)}, expected a tuple of {len(expected)} tensors")
    indices = range(len(expected)) if output is None else [output]
    return [(got[i], expected[i], f"{what}[{i}]") for i in indices]
