"""`python -m grader` is `lumen-grade`."""

from grader.cli import main

main()
