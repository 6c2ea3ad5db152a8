"""Exercise 1: what the generic analysers (grader/diagnosis/analysers.py) know of its functions
(see grader/diagnosis/traits.py)."""

from grader.diagnosis.traits import Traits

TRAITS = {
    "project": Traits(roles=frozenset({"projects"}), args=("x", "w_q", "w_k", "w_v"), labels=("q", "k", "v")),
    "fused_project": Traits(roles=frozenset({"projects", "fused"}), labels=("q", "k", "v")),
}
