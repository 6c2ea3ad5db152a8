"""Grading: the run settings, the runner, the pytest plugin that runs the hidden suites, the student's
submission, the comparison with the float64 reference and the verdict."""
