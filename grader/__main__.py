"""`python -m grader` is `lumen-grade`."""

from grader.cli import lumen_grade

lumen_grade()
