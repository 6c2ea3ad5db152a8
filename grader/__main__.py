"""`python -m grader` is `lumen-grade`."""

from grader.cli.main import main

main()
