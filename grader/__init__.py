"""`lumen-grade`: the autograder for the Lumen attention exercises.

The folders are the path every command follows: cli -> catalog (the exercise, one package each)
-> grading (the run) -> sandbox (the student's code in a child process) -> the suites (pytest, in
this process) -> diagnosis -> grading.results (the verdict) -> reports; course holds the
instructors' tools. docs/architecture.md has the stages and the import rule between them.
"""
