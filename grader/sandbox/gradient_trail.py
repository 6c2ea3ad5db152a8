"""Where the backward pass of a call of the student's code first made an inf or a NaN, for the diagnosis
of a gradient that is not finite where the reference's is.

A NaN gradient says only that some step on the way back was not finite. While one call and its
backward pass run, `Trail` records each operation's line of the student's file (autograd's anomaly
mode keeps the forward traceback on every node) and watches every node of the graph: the first whose
incoming gradients were finite and whose outgoing ones are not made the first inf or NaN. Its note,
{"where", "function"}, is text the judge only shows. This runs in the child, next to the student's code.
"""

import os
import re
import warnings

import torch

_FRAME = re.compile(r'\s*File "(?P<file>[^"]*)", line (?P<line>\d+), in (?P<name>[^\n]*)\n(?P<code>[^\n]*)')


class Trail:
    """While active: autograd keeps the forward line of every operation. `watch(outputs)` before the
    backward pass; `first` is then the note of the node that made its first inf or NaN, or None."""

    def __init__(self, path):
        self.path = path
        self.first = None
        self._anomaly = None

    def __enter__(self):
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        warnings.simplefilter("ignore")  # anomaly mode's own notice is not the student's output
        self._anomaly = torch.autograd.detect_anomaly(check_nan=False)
        self._anomaly.__enter__()
        return self

    def __exit__(self, *exc):
        self._anomaly.__exit__(*exc)
        self._warnings.__exit__(*exc)
        return False

    def watch(self, outputs):
        """Hook every node of the graph behind `outputs` (tensors)."""
        seen, todo = set(), [out.grad_fn for out in outputs]
        while todo:
            node = todo.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            node.register_hook(lambda made, given, node=node: self._check(node, made, given))
            todo += [following for following, _ in node.next_functions]

    def _check(self, node, made, given):
        """`given`: the gradients that reached the node; `made`: those it passes on (autograd's hook)."""
        if self.first is None and _finite(given) and not _finite(made):
            self.first = {"where": self._line(node.metadata.get("traceback_") or []), "function": node.name()}

    def _line(self, stack):
        """The student's frames of a forward traceback, as a report names a line (stand_in.student_line's form)."""
        frames = [found for found in (_FRAME.match(entry) for entry in stack)
                  if found and os.path.abspath(found["file"]) == self.path]
        where = [f"line {found['line']}, in {found['name']} (`{found['code'].strip()}`)" for found in frames[-2:]]
        return " called from ".join(reversed(where)) or None


def _finite(gradients):
    return all(g is None or bool(torch.isfinite(g).all()) for g in gradients)
