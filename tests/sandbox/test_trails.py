"""The trails the child keeps while it replays a failed call, in this process: where another dtype than
the inputs' entered a call of a student's file, for each way it enters (grader.sandbox.dtype_trail),
and which line's backward pass first made an inf or a NaN (grader.sandbox.gradient_trail)."""

import importlib.util
import textwrap

import pytest
import torch

from grader.sandbox import dtype_trail, gradient_trail

SOURCE = """
    import torch

    ONES = torch.ones(3)


    def cast(x):
        return x.float() * 2


    def made(x):
        return x + torch.zeros(3)


    def lifted(x):
        return torch.tensor(x.tolist()) + 1


    def met(x):
        return x * ONES


    def kept(x):
        return x * torch.ones(3, dtype=x.dtype)


    def clash(x):
        return x.float() @ x.unsqueeze(-1)


    def clamped(x):
        e = torch.exp(x)
        return e / e.sum(-1, keepdim=True).clamp_min(1e-30)
"""


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    path = tmp_path_factory.mktemp("trail") / "theirs.py"
    path.write_text(textwrap.dedent(SOURCE))
    spec = importlib.util.spec_from_file_location("theirs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


def trail(student, name, x):
    module, path = student
    with torch.no_grad(), dtype_trail.Trail(path, dtype_trail.wanted(None, (x,), {})) as found:
        try:
            return found.of(getattr(module, name)(x))
        except RuntimeError:
            return found.crash


@pytest.mark.parametrize("name, dtype, kind, line, source", [
    ("cast", torch.float64, "cast", 8, "float64"),
    ("made", torch.float16, "made", 12, None),
    ("lifted", torch.float64, "made", 16, None),
    ("met", torch.float16, "met", 20, None),
    ("clash", torch.float64, "cast", 28, "float64"),
])
def test_each_way_a_dtype_enters_is_named_with_its_line(student, name, dtype, kind, line, source):
    entered = trail(student, name, torch.arange(3, dtype=dtype))
    assert entered is not None and entered["kind"] == kind and entered["from"] == source
    assert entered["dtype"] == "float32" and entered["where"].startswith(f"line {line}, in {name} (`return ")


def test_a_call_that_keeps_its_inputs_dtype_leaves_no_trail(student):
    assert trail(student, "kept", torch.arange(3, dtype=torch.float16)) is None
    assert trail(student, "cast", torch.arange(3, dtype=torch.float32)) is None


def backward_trail(student, x, scale):
    module, path = student
    x = x.clone().requires_grad_(True)
    with gradient_trail.Trail(path) as found:
        y = module.clamped(x)
        found.watch([y])
        (y * scale).sum().backward()
    return found.first


def test_the_first_non_finite_gradient_is_named_with_its_line(student):
    x = torch.tensor([[0.0, 1.0], [float("-inf"), float("-inf")]])
    first = backward_trail(student, x, 1e10)
    assert first["function"] == "DivBackward0"
    assert first["where"].startswith("line 33, in clamped (`return e / e.sum(-1, keepdim=True).clamp_min(1e-30)`)")
    assert backward_trail(student, torch.tensor([[0.0, 1.0]]), 1.0) is None  # finite all the way: no trail
