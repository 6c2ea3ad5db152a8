"""Exercise 9: what the generic analysers (grader/diagnosis/analysers.py) know of its functions
(see grader/diagnosis/traits.py): none of them has a role the structural probes use."""

TRAITS = {}
