"""The stand-in device (grader.sandbox.stand_in): what a GPU would refuse is refused on the CPU, and
what a GPU accepts is accepted, with the values computed as they always are.

In-process: the mode needs no child. The suites' use of it (check_device_kept) is graded through the
corpus: tests/submissions/*/wrong_*_on_cpu.py must get `built-on-cpu`, every honest file full marks.
"""

import pytest
import torch

from grader.sandbox import stand_in

HERE = __file__


def on_stand_in(fn, *args, **kwargs):
    """fn(*args, **kwargs) with its tensors on the stand-in: (value as CPU tensors, placed)."""
    with stand_in.Device(HERE) as device:
        value = fn(*stand_in.move(args), **stand_in.move(kwargs))
    return stand_in.back(value, device)


HONEST = {  # code that runs on CUDA, each way of making a tensor on the inputs' device
    "factory with device=": lambda x: x @ torch.tril(torch.ones(x.shape[-1], x.shape[-1], device=x.device)),
    "arange on the inputs' device": lambda x: (torch.arange(x.shape[-1], device=x.device) < 2) * x,
    "zeros_like and full_like": lambda x: torch.zeros_like(x) + torch.full_like(x, 2.0) * x,
    "new_ones": lambda x: x.new_ones(x.shape) * x,
    ".to(x.device)": lambda x: torch.ones(x.shape).to(x.device) * x,
    "a 0-dim CPU tensor": lambda x: torch.where(x > 0, x, torch.tensor(0.0)),
    "torch.tensor on the device": lambda x: torch.where(x > 0, x, torch.tensor(-1.5, device=x.device)),
    "new_tensor and as_tensor": lambda x: x * x.new_tensor([1.0, 2.0, 3.0, 4.0]) + torch.as_tensor(
        [0.5] * 4, device=x.device),
    "CPU indices": lambda x: x[:, torch.tensor([0, 2])],
    "values read back (.item, .tolist)": lambda x: x * float(x.amax().item()) * len(x.tolist()),
    "in place on a copy": lambda x: x.clone().masked_fill_(x < 0, 0.0),
    "views": lambda x: x.transpose(-2, -1).contiguous().view(-1),
}


@pytest.mark.parametrize("name", HONEST)
def test_what_a_gpu_accepts_stays_on_the_device_with_its_values(name):
    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(0))
    value, placed = on_stand_in(HONEST[name], x)
    assert placed == [True]
    torch.testing.assert_close(value, HONEST[name](x), rtol=0, atol=0)


def test_a_tensor_made_on_the_cpu_is_refused_where_it_meets_the_inputs_and_its_line_is_named():
    def apply(scores):
        mask = torch.ones(scores.shape[-1], scores.shape[-1], dtype=torch.bool).tril()  # no device=
        return scores.masked_fill(~mask, float("-inf"))

    with pytest.raises(stand_in.DeviceMismatch) as raised:
        on_stand_in(apply, torch.randn(2, 4, 4))
    message = str(raised.value)
    assert message.startswith("masked_fill meets a tensor of shape [4, 4] made at line ")
    assert "(`mask = torch.ones(scores.shape[-1], scores.shape[-1], dtype=torch.bool).tril()  # no device=`)" \
        in message and message.endswith("which is on the CPU, with tensors on the inputs' device")


def test_a_tensor_returned_from_the_cpu_is_reported_with_its_line():
    value, placed = on_stand_in(lambda L, device=None: torch.ones(L, L, dtype=torch.bool).tril(), 3,
                                device=stand_in.DEVICE.type)
    assert torch.equal(value, torch.ones(3, 3, dtype=torch.bool).tril())
    [where] = placed
    assert where.startswith("line ") and "torch.ones(L, L, dtype=torch.bool).tril()" in where


def test_a_module_is_held_on_the_device_for_the_call_and_put_back():
    module = torch.nn.Linear(4, 3)
    weight = module.weight
    x = torch.randn(2, 4)
    with stand_in.Device(HERE) as device, stand_in.holding(module):
        assert module.weight.device == stand_in.DEVICE
        value, placed = stand_in.back(module(stand_in.move(x)), device)
        with pytest.raises(stand_in.DeviceMismatch):  # a CPU tensor against the module's weight
            module(x)
    assert placed == [True] and module.weight is weight and type(module.weight) is torch.nn.Parameter
    torch.testing.assert_close(value, module(x).detach(), rtol=0, atol=0)


def test_a_copy_into_a_cpu_tensor_is_allowed_and_leaves_it_on_the_cpu():
    def store(k):
        storage = torch.zeros(2, 5)  # no device=: the copy works, the storage stays on the CPU
        storage[:, :3] = k
        return storage

    value, [where] = on_stand_in(store, torch.ones(2, 3))
    assert value[:, :3].eq(1).all() and value[:, 3:].eq(0).all() and "torch.zeros(2, 5)" in where


def test_code_that_switches_the_device_off_is_told_so():
    from torch.utils._python_dispatch import _disable_current_modes

    def hidden(x):
        with _disable_current_modes():
            return x + 1

    with pytest.raises(stand_in.StandInDisabled, match="switched off the grader's stand-in device"):
        on_stand_in(hidden, torch.ones(3))


def test_a_tuple_of_its_own_type_comes_back_as_that_type():
    """A named tuple (a student's `QKV(q, k, v)`), torch's `return_types` and a tuple subclass whose
    constructor takes something else are each rebuilt around the walked values: round 31's honest
    named tuples lost exercise 1's and 5's device tests to `type(value)(items)`."""
    from typing import NamedTuple

    from grader.nested import map_values

    class QKV(NamedTuple):
        q: object
        k: object
        v: object

    class Odd(tuple):
        def __new__(cls, first, *, flag):
            return super().__new__(cls, first)

    assert map_values(QKV(1, 2, 3), lambda x: x * 10) == QKV(10, 20, 30)
    assert type(map_values(QKV(1, 2, 3), str)) is QKV
    found = map_values(torch.max(torch.tensor([[1.0, 5.0]]), dim=1), lambda t: t + 1)
    assert type(found).__name__ == "max" and found.values.item() == 6.0
    assert map_values(Odd([1, 2], flag=True), lambda x: -x) == (-1, -2)
