"""Saved as conftest.py beside the submission: would turn every test into a pass, and leaves a
file behind if pytest ever loads it."""

import os

import pytest

open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "conftest-was-loaded"), "w").close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome, report.longrepr = "passed", None
    call.excinfo = None
