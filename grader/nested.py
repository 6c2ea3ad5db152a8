"""Nested values (tuples, lists and dicts of anything): walked the same way everywhere. Both sides.

The judge's calls, the child's replies and the diagnosis's replays all carry tensors, handles and
plain values inside tuples, lists and dicts; these two walks are the only ones.
"""


def map_values(value, leaf):
    """`value` with `leaf` applied to everything in it that is not a tuple, list or dict (each
    container rebuilt as its own type)."""
    if isinstance(value, (list, tuple)):
        return type(value)(map_values(item, leaf) for item in value)
    if isinstance(value, dict):
        return {key: map_values(item, leaf) for key, item in value.items()}
    return leaf(value)


def leaves(value):
    """Everything in `value` that is not a tuple, list or dict, depth first."""
    if isinstance(value, (list, tuple)):
        return [found for item in value for found in leaves(item)]
    if isinstance(value, dict):
        return [found for item in value.values() for found in leaves(item)]
    return [value]
