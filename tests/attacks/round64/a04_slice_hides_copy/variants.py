# which holders child.storages walks into (run with /opt/venv20/bin/python from /tmp)
import torch, functools, itertools
from grader.perf.child import storages
t = torch.zeros(1000)
class C: pass
variants = {
 "list": lambda: [t], "slice": lambda: slice(t), "ValueError": lambda: ValueError(t), "iter(list)": lambda: iter([t]),
 "closure": lambda: (lambda: t), "partial": lambda: functools.partial(print, t), "bound builtin": lambda: t.add,
 "itertools.repeat": lambda: itertools.repeat(t), "map": lambda: map(None, [t]), "zip": lambda: zip([t]),
 "dict.values()": lambda: {1: t}.values(), "staticmethod": lambda: staticmethod(t),
 "generator": lambda: (x for x in [t]),
}
for name, make in variants.items():
    c = C(); c.held = make()
    print(f"{name:18s} found:", bool(storages(c)))
