"""Exercise 3: what the generic analysers (grader/diagnosis/analysers.py) know of its functions
(see grader/diagnosis/traits.py)."""

import math

from grader.diagnosis.traits import Traits

TRAITS = {
    "scale_scores": Traits(roles=frozenset({"scores", "scores-width", "view-scores"}),
                           axes=("batch",) * 8 + ("queries", "keys"),
                           divisor=("√d_k", lambda n: math.sqrt(n["d_k"]))),
    "scaled_scores": Traits(roles=frozenset({"scores", "qk", "view-scores"}), args=("q", "k"),
                            axes=("batch",) * 8 + ("queries", "keys"),
                            divisor=("√d_k", lambda n: math.sqrt(n["d_k"]))),
}
