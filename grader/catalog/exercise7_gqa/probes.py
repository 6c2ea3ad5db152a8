"""Exercise 7: what the generic analysers (grader/diagnosis/analysers.py) know of its functions
(see grader/diagnosis/traits.py)."""

from grader.diagnosis.traits import Traits
from grader.catalog.exercise6_multihead.probes import MODULE

TRAITS = {
    "repeat_kv": Traits(roles=frozenset({"repeats-heads"})),
    "GroupedQueryAttention": Traits(roles=MODULE | {"gqa"}),
}
