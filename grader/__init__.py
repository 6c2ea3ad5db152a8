"""`lumen-grade`: the autograder for the Lumen attention exercises.

The path every command follows: cli -> catalog (which exercise) -> sandbox (the student's code in
a child process) -> suites (pytest, in this process) -> results (the verdict) -> report.
"""
