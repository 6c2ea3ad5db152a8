"""benchmarks/gpu_check.py, the one command that checks the GPU path: without CUDA it checks
nothing and says so, with exit status 77 ("skipped"), never a pass."""

import importlib.util

import pytest
from click.testing import CliRunner

from conftest import ROOT


def test_without_cuda_the_gpu_check_explains_and_skips(monkeypatch):
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "benchmarks" / "gpu_check.py")
    gpu_check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu_check)
    device = gpu_check.cuda_device()  # asked in a child: this process must not touch CUDA before forking
    if device is not None:
        pytest.skip(f"{device} is here: run benchmarks/gpu_check.py itself")
    monkeypatch.setattr(gpu_check, "cuda_device", lambda: device)
    for args in ([], ["--record"]):
        done = CliRunner().invoke(gpu_check.main, args)
        assert done.exit_code == 77, done.output
    out = done.output
    assert "no CUDA device here" in out and "nothing was checked" in out and "PASS" not in out
