"""Exercise 2: what the generic analysers (grader/diagnosis/analysers.py) know of its functions
(see grader/diagnosis/traits.py)."""

from grader.diagnosis.traits import Traits

TRAITS = {
    "attention_scores": Traits(roles=frozenset({"scores", "qk", "view-scores"}), args=("q", "k"),
                               axes=("batch",) * 8 + ("queries", "keys"), divisor=("1", lambda n: 1.0)),
}
