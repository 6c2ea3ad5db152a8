"""The performance tier of a passed exercise: its code timed against the reference.

Which process each module's code runs in:

- `cases`: both. What is timed, on which inputs, at which size; the judge builds the verification
  inputs from the seed to compute the expected output, the child the same inputs to time.
- `rounds`: both. How many rounds a case is timed and the statistics of their ratios.
- `child`: the child (the student's, or the reference's own timing child). The clocks read around
  every call, captured before any student code runs; the reference's side of the calls; the
  "largest_allocation" op the suites ask (exercise 10's memory rule).
- `probe`: the child. The allocation probe, which reads as disabled, never as small, when the
  student's code switches it off.
- `judge`: the judge. Verifies the student's output on the cases, interleaves the two children's
  calls on fresh inputs, checks every timed answer, measures the children from outside, decides
  when the rounds are enough, and names the tier.
"""
