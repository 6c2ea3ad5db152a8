"""Exercise 5: what the generic analysers (grader/diagnosis/analysers.py) know of its functions
(see grader/diagnosis/traits.py)."""

from grader.diagnosis.traits import Traits

TRAITS = {
    "softmax": Traits(roles=frozenset({"softmax"})),
    "scaled_dot_product_attention": Traits(roles=frozenset({"qk", "attends", "view-scores"}),
                                           args=("q", "k", "v", "mask"), labels=("output", "weights"),
                                           explains_first=(1, 0)),  # the weights explain the output
}
