"""The sandbox: the student's code runs in a confined child process, never in the judge's.

Which process each module's code runs in:

- `judge`: the judge (the grader's own process). Starts children (through a zygote on Linux),
  sends them requests, enforces the time limit, and rebuilds what they answer as plain values and
  `StudentError`s; `Child` is the judge's handle on one child.
- `child`: the child. Imports the student's file and answers the judge's requests, under the
  exercise's rules, with its own limits and seccomp filter.
- `rules`: the child. The forbidden shortcuts of each exercise, watched while the student's code runs.
- `containment`: both. `plan` decides in the judge what every child may reach; `confine` applies
  it in each child (Landlock, a private mount namespace, an unprivileged uid).
- `wire`: both. The only language the two share: plain data and raw tensor bytes, no pickle.
"""
