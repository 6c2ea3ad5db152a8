"""Exercise 6: what the generic analysers (grader/diagnosis/analysers.py) know of its functions
(see grader/diagnosis/traits.py)."""

from grader.diagnosis.traits import Traits

MODULE = frozenset({"attends", "module", "splits", "merges", "view-scores"})

TRAITS = {
    "split_heads": Traits(roles=frozenset({"splits"}), axes=("batch", "heads", "positions", "head width")),
    "merge_heads": Traits(roles=frozenset({"merges"}), axes=("batch", "positions", "model width")),
    "MultiHeadAttention": Traits(roles=MODULE | {"fused", "fused-per-head"}),
}
