"""Nested values (tuples, lists and dicts of anything): walked the same way everywhere. Both sides.

The judge's calls, the child's replies and the diagnosis's replays all carry tensors, handles and
plain values inside tuples, lists and dicts; these two walks are the only ones.
"""


def map_values(value, leaf):
    """`value` with `leaf` applied to everything in it that is not a tuple, list or dict (each
    container rebuilt as its own type, where it can be)."""
    if isinstance(value, (list, tuple)):
        items = [map_values(item, leaf) for item in value]
        return type(value)(items) if type(value) in (list, tuple) else _rebuilt(value, items)
    if isinstance(value, dict):
        return {key: map_values(item, leaf) for key, item in value.items()}
    return leaf(value)


def _rebuilt(value, items):
    """A subclass of list or tuple made again of `items`: through its constructor, which takes them
    as one sequence (torch's `return_types`) or one by one (a named tuple: a student's `(q, k, v)`
    of its own type), if what it made holds them; as a plain list or tuple where neither does."""
    kind = type(value)
    for make in (lambda: kind(items), lambda: kind(*items)):
        try:
            made = make()
            if len(made) == len(items) and all(got is item for got, item in zip(made, items)):
                return made
        except Exception:  # noqa: BLE001, S112 - a constructor of the student's own may raise anything
            continue
    return (list if isinstance(value, list) else tuple)(items)


def leaves(value):
    """Everything in `value` that is not a tuple, list or dict, depth first."""
    if isinstance(value, (list, tuple)):
        return [found for item in value for found in leaves(item)]
    if isinstance(value, dict):
        return [found for item in value.values() for found in leaves(item)]
    return [value]
