"""Forbidden shortcuts are refused on every path to the kernel: the operator called on a tensor of
another layout or backend (MKLDNN, sparse), with torch function handling or the modes switched off,
a mode popped, from another thread, and torch's Python functions that build the forbidden maths
out of allowed operations (its decompositions, wherever a table hands them out, and what they wrap). Each case is the instructor's solution with one function replaced by
the shortcut: every test of that function must fail, naming the rule; the refusals are checked
against torch's own registry of kernels too."""

import json
import os
import re
import textwrap
from pathlib import Path

import pytest
import torch

from conftest import SOLUTIONS
from grader import catalog
from grader.sandbox import rules

SOFTMAX, FUSED, MULTIHEAD = "torch's softmax", "torch's fused attention", "nn.MultiheadAttention"

SOFTMAX_SHORTCUTS = {  # exercise 5's softmax(x, dim=-1)
    "compiled": """
        softmax = torch.compile(torch.nn.functional.softmax, backend="eager", dynamic=True)  # round 83's a08
    """,
    "mkldnn": """
        def softmax(x, dim=-1):
            with torch._C.DisableTorchFunction():
                y = torch.ops.aten._softmax.default(x.float().to_mkldnn(), dim % x.dim(), False).to_dense()
            return torch.nan_to_num(y, nan=0.0).to(x.dtype)
    """,
    "sparse": """
        def softmax(x, dim=-1):
            return torch.sparse.softmax(x.to_sparse(), dim).to_dense().nan_to_num(0.0)
    """,
    "torch-function-disabled": """
        def softmax(x, dim=-1):
            with torch._C.DisableTorchFunction():
                return torch.softmax(x, dim).nan_to_num(0.0)
    """,
    "modes-disabled": """
        from torch.utils._python_dispatch import _disable_current_modes
        from torch.overrides import _pop_mode_temporarily

        def softmax(x, dim=-1):
            with _disable_current_modes(), torch._C._DisableTorchDispatch():
                return torch.ops.aten._softmax.default(x, dim % x.dim(), False).nan_to_num(0.0)
    """,
    "mode-popped": """
        def softmax(x, dim=-1):
            while torch._C._len_torch_function_stack():
                torch._C._pop_torch_function_stack()
            return x.softmax(dim).nan_to_num(0.0)
    """,
    "decomposition-table": """
        from torch._inductor.decomposition import decompositions

        def softmax(x, dim=-1):
            return decompositions[torch.ops.aten._softmax.default](x, dim, False).nan_to_num(0.0)
    """,
    "python-reference-unwrapped": """
        import torch._inductor.decomposition as inductor

        def softmax(x, dim=-1):
            reference = inductor.decompositions[torch.ops.aten._softmax.default]
            while hasattr(reference, "__wrapped__"):
                reference = reference.__wrapped__
            return reference(x, dim, False).nan_to_num(0.0)
    """,
    "another-namespace": """
        def softmax(x, dim=-1):  # quantized::softmax, outside aten (round 72's a03), with the modes off
            q = torch.quantize_per_tensor(x.detach().float().cpu(), 1 / 16, 128, torch.quint8)
            with torch._C.DisableTorchFunction():
                y = torch.ops.quantized.softmax(q, dim % x.dim(), 1 / 256, 0)
            return y.dequantize().to(x.dtype)
    """,
    "other-thread": """
        import threading

        def softmax(x, dim=-1):
            out = []
            worker = threading.Thread(target=lambda: out.append(torch.softmax(x, dim).nan_to_num(0.0)))
            worker.start()
            worker.join()
            return out[0] if out else torch.exp(x)
    """,
}

ATTENTION_SHORTCUTS = {  # exercise 6's scaled_dot_product_attention(q, k, v, mask=None) and the module
    "multi-head-function-disabled": ("MultiHeadAttention", MULTIHEAD, """
        import torch.nn.functional as F

        class MultiHeadAttention(MultiHeadAttention):
            def forward(self, x, mask=None):
                D = x.size(-1)
                if mask is None:
                    mask = causal_mask(x.size(1), x.device)
                with torch._C.DisableTorchFunction():
                    y, _ = F.multi_head_attention_forward(
                        x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), D, self.n_heads,
                        self.qkv.weight, self.qkv.bias, None, None, False, 0.0, self.out.weight, self.out.bias,
                        attn_mask=~mask.reshape(-1, *mask.shape[-2:])[0], need_weights=True)
                return y.transpose(0, 1)
    """),
    "quantizable-module": ("MultiHeadAttention", MULTIHEAD, """
        import torch.ao.nn.quantizable as quantizable

        class MultiHeadAttention(MultiHeadAttention):
            def forward(self, x, mask=None):
                D = x.size(-1)
                mha = quantizable.MultiheadAttention(D, self.n_heads, batch_first=True).to(x.dtype)
                return mha(x, x, x, need_weights=False)[0]
    """),
    "flash-for-cpu-decomposition": ("scaled_dot_product_attention", FUSED, """
        def scaled_dot_product_attention(q, k, v, mask=None):
            table = torch.export.default_decompositions()  # a public API handing out torch._decomp's code
            flash = table[torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default]
            return flash(q, k, v, attn_mask=mask)[0], None
    """),
    "flash-for-cpu-modes-disabled": ("scaled_dot_product_attention", FUSED, """
        from torch.utils._python_dispatch import _disable_current_modes

        def scaled_dot_product_attention(q, k, v, mask=None):
            with _disable_current_modes(), torch._C.DisableTorchFunction():
                out = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=mask)[0]
            return out, None
    """),
}


def _tests_of(result, target):
    return [test for test in result.tests if test.status != "skipped" and target in test.name]


@pytest.mark.privileges
@pytest.mark.parametrize("shortcut", SOFTMAX_SHORTCUTS)
def test_a_softmax_shortcut_is_refused_on_every_path(grade, shortcut):
    exercise = catalog.find("exercise5")
    source = (SOLUTIONS / exercise.file_name).read_text() + textwrap.dedent(SOFTMAX_SHORTCUTS[shortcut])
    result = grade("exercise5", source)
    softmax_tests = [test for test in _tests_of(result, "softmax") if "attention" not in test.name]
    assert softmax_tests and not any(test.status == "passed" for test in softmax_tests), \
        [(test.name, test.status) for test in softmax_tests]
    assert all(SOFTMAX in test.message for test in softmax_tests), [test.message for test in softmax_tests]
    assert result.score < result.max_score


def test_a_compiled_function_is_graded_as_it_is_written(grade):
    """Round 83's a08: an honest softmax wrapped in torch.compile was traced through the grader's modes and probes
    and gave wrong values (32/41); torch.compile in the child hands the function back as it is."""
    exercise = catalog.find("exercise5")
    source = (SOLUTIONS / exercise.file_name).read_text() + textwrap.dedent("""
        softmax = torch.compile(softmax, backend="eager", dynamic=True)
        scaled_dot_product_attention = torch.compile(scaled_dot_product_attention)
    """)
    result = grade("exercise5", source)
    assert result.score == result.max_score, [(test.name, test.message) for test in result.tests if test.message]


@pytest.mark.privileges
@pytest.mark.parametrize("shortcut", ATTENTION_SHORTCUTS)
def test_an_attention_shortcut_is_refused_on_every_path(grade, shortcut):
    target, rule, code = ATTENTION_SHORTCUTS[shortcut]
    exercise = catalog.find("exercise6")
    result = grade("exercise6", (SOLUTIONS / exercise.file_name).read_text() + textwrap.dedent(code))
    hit = [test for test in result.tests if test.status != "skipped" and rule in (test.message or "")]
    assert hit, [(test.name, test.status, test.message[:80]) for test in result.tests]
    assert result.score < result.max_score


def _unrefused_kernels():
    """In this process: install every rule's kernels, then list each (operator, key) of torch's
    registry whose active kernel is not the one registered from rules.py."""
    patterns = {rule.id: rule.kernels for rule in rules.RULES if rule.kernels}
    listed = {rule_id: {f"{namespace}::{op}": keys for namespace, op, keys in ops}
              for rule_id, ops in rules.KERNELS.items()}
    rules.Guard(tuple(patterns), os.devnull)._refuse_kernels()
    missing = []
    for name in torch._C._dispatch_get_all_op_names():  # every namespace's (round 72's a03: quantized::softmax)
        op = name.partition("::")[2]
        for rule_id, pattern in patterns.items():
            if not re.search(pattern, op):
                continue
            if name not in listed[rule_id]:
                missing.append(f"{name}: not listed")
                continue
            for line in torch._C._dispatch_dump(name).splitlines():
                key = re.match(r"^(\w+)(?:\[alias\])?: registered at (\S+)", line)
                if key and key[1] != "debug" and key[2].rpartition(":")[0] != rules.__file__:
                    missing.append(f"{name} on {key[1]}: {key[2]}")
    return sum(len(ops) for ops in listed.values()), missing


def test_every_kernel_torch_registers_for_a_forbidden_operator_refuses():
    """After the refusals are installed, every dispatch key torch's registry lists for every
    overload of every forbidden operator runs the refusal (the key's active kernel is the one
    registered from rules.py). Checked in a forked process: the refusals last as long as it."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never back into pytest
        try:
            os.close(read)
            os.write(write, json.dumps(_unrefused_kernels()).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        reply = pipe.read()
    os.waitpid(pid, 0)
    count, missing = json.loads(reply)
    assert count > 50 and missing == [], missing[:20]


def test_inputs_swapped_from_the_stack_are_still_seen(grade):
    """Round 5's a10: a softmax that destroys its input, then swaps the child's list of arguments for
    clean copies found on its own stack. The child holds the arguments in a tuple: it sends back the
    very tensors the student's code received, and the in-place edit fails its test."""
    path = Path(__file__).resolve().parents[1] / "attacks" / "round5" / "a10_hide_inplace_edit" / "exercise5_softmax.py"
    result = grade("exercise5", path=path)
    inputs = [test for test in result.tests if test.name.startswith("test_inputs_not_modified")]
    assert inputs and any(test.status == "failed" for test in inputs), [(t.name, t.status) for t in inputs]


FOREIGN = rules.FOREIGN.name
ROUND20 = SOLUTIONS.parent / "tests" / "attacks" / "round20"
CTYPES_SHORTCUTS = {  # exercise 5's softmax(x, dim=-1) through ctypes: refused whoever the code claims to be
    "libc": """
        import ctypes

        def softmax(x, dim=-1):
            ctypes.CDLL(None).getpid()
            return torch.zeros_like(x)
    """,
    "named-as-torch": """
        import ctypes

        _claims = {"ctypes": ctypes}
        exec(compile("def use():\\n    return ctypes.CDLL(None).getpid()\\n", torch.__file__, "exec"), _claims)

        def softmax(x, dim=-1):
            _claims["use"]()
            return torch.zeros_like(x)
    """,
}


@pytest.mark.privileges
@pytest.mark.parametrize("shortcut", CTYPES_SHORTCUTS)
def test_ctypes_is_refused_whoever_the_code_claims_to_be(grade, shortcut):
    """ctypes reaches torch's kernels by address, past the dispatcher (round 20's a1 and a2): refused
    in the student's code, also in code compiled under torch's file name."""
    source = (SOLUTIONS / "exercise5_softmax.py").read_text() + textwrap.dedent(CTYPES_SHORTCUTS[shortcut])
    result = grade("exercise5", source)
    softmax_tests = [test for test in _tests_of(result, "softmax") if "attention" not in test.name]
    assert softmax_tests and all(FOREIGN in test.message for test in softmax_tests), \
        [test.message for test in softmax_tests]


@pytest.mark.privileges
@pytest.mark.parametrize("exercise, attack", [("exercise5", "a1_ctypes_softmax"), ("exercise10", "a2_ctypes_fused_attention")])
def test_torch_kernels_called_through_ctypes_score_nothing(grade, exercise, attack):
    """Round 20's a1 (at::cpu::_softmax_outf) and a2 (the flash-attention kernel's DispatchStub):
    full marks before; refused at import now."""
    result = grade(exercise, path=next((ROUND20 / attack / "submission").glob("*.py")))
    assert result.score == 0 and FOREIGN in result.error, result.error


@pytest.mark.privileges
def test_torch_s_own_ctypes_is_allowed(grade):
    """torch.cuda asks NVML for the device count with ctypes when CUDA is not started yet (a student's
    `torch.cuda.device_count()` at import): torch's code, so not refused; without NVML it fails as
    it would anywhere."""
    source = (SOLUTIONS / "exercise5_softmax.py").read_text() + textwrap.dedent("""
        try:
            torch.cuda._raw_device_count_nvml()
        except OSError:  # no NVML on this machine
            pass
    """)
    result = grade("exercise5", source)
    assert result.score == result.max_score, result.error


ROUND21 = SOLUTIONS.parent / "tests" / "attacks" / "round21"


@pytest.mark.privileges
def test_the_answer_key_found_in_memory_refuses():
    """Round 21's a2: the judge imported lumen_ref before the zygote forked, so its functions are in
    every child's memory, where gc finds them; each exercise's names bound to them scored 329/329. In
    a student's child every function and method of the answer key has the code of a refusal."""
    from grader.grading.runner import grade as run_all
    from grader.grading.settings import Settings

    report = run_all(catalog.EXERCISES, Settings(submission=ROUND21 / "a2_answer_key_from_gc" / "sub", device="cpu",
                                                 perf=False, time_limit=60.0, hold_reaching=False))
    assert sum(exercise.score for exercise in report.exercises) == 0
    failed = [test for exercise in report.exercises for test in exercise.tests if test.status == "failed"]
    assert failed and all("forbidden: the answer key" in test.message for test in failed), \
        {test.message for test in failed if "forbidden: the answer key" not in test.message}


def test_a_library_loaded_by_its_path_is_refused_whoever_asks():
    """Round 49's a02: torch.cuda's pluggable allocator (code the guard trusts with ctypes, for NVML) loads
    any library by its path, here one the student wrote in its scratch folder, whose constructor ran
    Python in the child. A path is refused; torch.cuda's own libraries are loaded by name."""
    guard = rules.Guard((), os.devnull, ctypes=False)
    with pytest.raises(rules.Violation, match="loaded /scratch/allocator.so"):
        guard._audit("ctypes.dlopen", ("/scratch/allocator.so",))
    assert guard.violation.rule is rules.FOREIGN
