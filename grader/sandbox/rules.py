"""Forbidden shortcuts: the rules of each exercise, enforced in the student's process at run time.

An exercise forbids what would skip the step it teaches: torch's softmax in exercise 5, torch's
fused attention and `nn.MultiheadAttention` in exercises 5–8, and in every exercise the answer key
(`lumen_ref`, `solutions`) and the grader. The rules watch what the student's code does, not its
text: a comment or a string that names a forbidden function is fine, while a call through an alias,
a Tensor method (`x.softmax`), `getattr` or a module such as `nn.Softmax` is caught. Three watchers,
installed in the child before the student's file is loaded:

- a TorchFunctionMode around the student's code sees every torch function for what it is;
- torch's own kernels of the forbidden operations are replaced by ones that refuse, in the
  dispatcher itself: every overload, on every dispatch key torch registers a kernel for (each
  backend's, MKLDNN, sparse, nested, quantized, meta, autograd, the composite ones), as torch's own
  registry lists them. This catches the calls that never reach the mode (`torch.ops.aten`, torch
  function handling or the modes switched off, a popped mode, another thread); torch's Python
  functions that compose a forbidden operation out of allowed ones (`F.multi_head_attention_forward`)
  have their code replaced by a refusal, so that no reference to them computes anything;
- an audit hook, which cannot be removed, sees imports, the answer key's files being opened or
  run by path (`importlib` by path, `runpy`, `exec(open(...).read())`), and the student's code
  using ctypes or Python's mmap (compiled code called past the dispatcher; memory the grader's
  probe cannot see).

A violation raises `Violation` and is also remembered, so a submission that catches the
exception still answers that request with the rule's name, and the judge scores those tests 0.
"""

import contextlib
import ctypes
import glob
import importlib.util
import os
import re
import sys
import types
import warnings
from dataclasses import dataclass

import torch
from torch.overrides import TorchFunctionMode

_GRADER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PROJECT = os.path.dirname(_GRADER)


def _package_dir(name):
    """Where a top-level package lives, found without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return os.path.dirname(spec.origin) if spec and spec.origin else None


_ANSWER_KEY = [p for p in (_package_dir("lumen_ref"), os.path.join(_PROJECT, "solutions"),
                           os.path.join(_GRADER, "oracle.py")) if p]
# what the student's code may not even open: the answer key, the hidden tests and the exercises'
# misconceptions (the grader's other files may be read: a traceback the student's code prints reads
# the child's source lines)
_SECRET = tuple(os.path.realpath(p) for p in
                (*_ANSWER_KEY, *glob.glob(os.path.join(_GRADER, "catalog", "*", "test_*.py")),
                 *glob.glob(os.path.join(_GRADER, "catalog", "*", "misconceptions.py")),
                 os.path.join(_GRADER, "grading", "testkit.py")))


@dataclass(frozen=True)
class Rule:
    """One forbidden shortcut: what the report calls it, what to do instead, where it applies."""

    id: str  # what an exercise's declaration names in its `forbidden` (grader.catalog)
    name: str
    advice: str
    everywhere: bool = False  # in every exercise, whatever its declaration says
    calls: tuple = ()  # parts of torch function names: "softmax" is also log_softmax, aten._softmax
    kernels: str = None  # a pattern of aten operator names: every overload's kernels refuse to run
    functions: tuple = ()  # torch's Python functions ("module:qualname") that build the forbidden maths
                           # from allowed operations: their code refuses
    private: tuple = ()  # torch's private modules that hold whole implementations of the forbidden maths
    modules: tuple = ()  # top-level modules the student's code may not import
    paths: tuple = ()  # files and folders whose code the student's may not run (nor open, if secret)


RULES = (
    Rule("softmax", "torch's softmax",
         "write softmax yourself: subtract the maximum, torch.exp, divide by the sum "
         "(chapter: Step 4 — Softmax)",
         calls=("softmax",),
         kernels=r"softmax",
         functions=("torch.distributions.transforms:SoftmaxTransform._call",),  # round 26's a16
         private=("torch._refs", "torch._decomp", "torch.distributed.tensor.parallel.loss")),
    Rule("fused-attention", "torch's fused attention (F.scaled_dot_product_attention)",
         "compute softmax(Q Kᵀ / √d_k) V step by step, or call the scaled_dot_product_attention "
         "in your own file",
         calls=("scaled_dot_product",),
         kernels=r"scaled_dot_product|scaled_dot_attention|flash_attention|efficient_attention|cudnn_attention"
                 r"|fused_attention|fused_sdp",
         private=("torch._decomp", "torch.nn.attention.flex_attention", "torch._higher_order_ops.flex_attention")),
    Rule("multihead-attention", "nn.MultiheadAttention",
         "build the heads yourself: project, split the heads, attend, merge the heads, project out",
         calls=("multi_head_attention", "transformer_encoder_layer"),
         kernels=r"multi_head_attention|transformer_encoder_layer",
         functions=("torch.nn.functional:multi_head_attention_forward",
                    "torch.ao.nn.quantizable.modules.activation:MultiheadAttention.forward",
                    "torch.ao.nn.quantizable.modules.activation:MultiheadAttention._forward_impl")),
    Rule("answer-key", "the answer key (lumen_ref, solutions)",
         "the grader compares your code with it: write the code yourself", everywhere=True,
         modules=("lumen_ref", "solutions"), paths=tuple(_ANSWER_KEY)),
    Rule("grader", "the grader",
         "your code runs on its own, without the grader's modules or its tests", everywhere=True,
         modules=("grader",), paths=(_GRADER,)),
)


# Changing torch's function-mode stack from inside a call would blind the mode: a violation too.
TAMPERING = Rule("tampering", "changing the grader's checks", "leave torch's function modes as you found them")
# ctypes calls compiled code by its address: torch's kernels (at::cpu::_softmax_outf, a DispatchStub's
# function) without the dispatcher, where the rules and the grader's probe watch (round 20's a1, a2)
FOREIGN = Rule("foreign-code", "calling compiled code through ctypes",
               "write it in torch: ctypes reaches torch's kernels around the exercise's rules and the grader's checks")
# memory mapped by Python's mmap module is no torch storage and no traced allocation: the grader's probe
# cannot see a whole matrix held there (round 22's a1 viewed one through np.frombuffer)
MAPPED = Rule("mapped-memory", "mapping memory with Python's mmap module",
              "compute in torch tensors: memory mapped with mmap is hidden from the grader's measure of what your "
              "code holds")
_CTYPES = os.path.dirname(os.path.abspath(ctypes.__file__)) + os.sep


class Violation(BaseException):
    """The student's code used a forbidden shortcut. A BaseException, so that an `except Exception`
    in the submission does not swallow it (the guard remembers it anyway)."""

    def __init__(self, rule, called):
        super().__init__(f"{rule.name}: {called}")
        self.rule, self.called = rule, called


def _display_name(func):
    """torch.softmax, Tensor.softmax, torch.nn.functional.softmax, torch.ops.aten._softmax..."""
    name = getattr(func, "__name__", repr(func))
    module = getattr(func, "__module__", None) or ""
    qualname = getattr(func, "__qualname__", name)
    if module.startswith("torch._ops"):  # "torch._ops.aten", "torch._ops.quantized": the operator's namespace
        return f"torch.ops.{module.removeprefix('torch._ops').strip('.') or 'aten'}.{name}"
    if qualname.startswith("TensorBase."):
        return f"Tensor.{name}"
    if qualname.startswith("_VariableFunctionsClass."):
        return f"torch.{name}"
    if module == "torch._C._special":
        return f"torch.special.{name.removeprefix('special_')}"
    if module == "torch._C._nn":
        return f"torch.nn.functional.{name}"
    return f"{module}.{qualname}" if module else qualname


def _inside(path, roots):
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


BY_ID = {rule.id: rule for rule in RULES}
ANSWER_KEY = "answer-key"


def rules_for(forbidden):
    """The rules of an exercise whose declaration forbids `forbidden` (rule ids): those, and the
    rules of every exercise."""
    unknown = [rule_id for rule_id in forbidden if rule_id not in BY_ID]
    if unknown:
        raise KeyError(f"no rule {', '.join(map(repr, unknown))} in grader.sandbox.rules (known: {', '.join(BY_ID)})")
    return [rule for rule in RULES if rule.everywhere or rule.id in forbidden]


class Guard:
    """The rules of one exercise, watching one child: `install` once, then run every piece of the
    student's code through `run`."""

    def __init__(self, forbidden, submission, ctypes=False):
        self.rules = rules_for(forbidden)
        self.ctypes = ctypes  # ctypes allowed: the kit's probes of the kernel's layer (judge.load_request)
        self.submission = os.path.realpath(submission)
        self.calls = [(part, rule) for rule in self.rules for part in rule.calls]
        self.modules = {module: rule for rule in self.rules for module in rule.modules}
        self.roots = [(tuple(os.path.realpath(p) for p in rule.paths), rule) for rule in self.rules if rule.paths]
        self.mode = _Mode(self) if self.calls else None
        self.library = None  # torch's kernels replaced by refusing ones, while it lives
        self.violation = None  # the first Violation not yet reported

    def install(self):
        """Forget the grader's and the answer key's modules, then start the watchers."""
        forget_modules()
        sys.addaudithook(self._audit)
        self._refuse_kernels()
        self._refuse_functions()
        self._guard_private_modules()
        self._warnings_at_their_line()

    def _warnings_at_their_line(self):
        """A warning that torch gives with its caller's line, in a call the mode passed on, names the mode's
        line, in the grader (round 72 saw the kit's path in "your code printed"): it is shown at the line of
        the student's that made the call instead."""
        show = warnings.showwarning

        def shown(message, category, filename, lineno, file=None, line=None):
            if _inside(os.path.abspath(filename), [_GRADER]):
                frame = sys._getframe(1)
                while frame is not None and os.path.realpath(frame.f_code.co_filename) != self.submission:
                    frame = frame.f_back
                if frame is not None:
                    filename, lineno, line = frame.f_code.co_filename, frame.f_lineno, None
            show(message, category, filename, lineno, file, line)

        warnings.showwarning = shown

    def _refuse_kernels(self):
        """Every overload (.out forms included) of every operator a rule names, in any namespace, on every
        dispatch key where torch registers a kernel for it (`KERNELS`, read from the dispatcher at
        import), is replaced by a refusal. The registrations are kept alive by a reference that no
        Python object holds (the library object is not tracked by the garbage collector), so that
        nothing the student's code can reach undoes them: they last as long as this child."""
        targets = [(rule, *kernel) for rule in self.rules for kernel in KERNELS.get(rule.id, ())]
        if not targets:
            return
        libraries = {}  # namespace -> its library of refusals
        with warnings.catch_warnings():  # "overriding a previously registered kernel": we mean it
            warnings.simplefilter("ignore")
            for rule, namespace, op, keys in targets:
                if namespace not in libraries:
                    libraries[namespace] = torch._C._dispatch_library("IMPL", namespace, "", __file__, 0)
                for key in keys:
                    libraries[namespace].impl(op, key, self._refusal(rule, f"torch.ops.{namespace}.{op}"), False)
        for library in libraries.values():
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(library))  # never released: see above
        self.library = True

    def _refuse_functions(self):
        """torch's Python functions that compute a forbidden operation out of allowed ones get the
        code of a refusal: every reference to them (a module's attribute, a method, one the
        student's code kept) refuses, with torch function handling on or off."""
        for rule in self.rules:
            for name, function, template in FUNCTIONS.get(rule.id, ()):
                refuse = self._refusal(rule, name.replace(":", "."))
                function.__code__ = template.replace(
                    co_consts=tuple(refuse if const == _PLACEHOLDER else const for const in template.co_consts))

    def _guard_private_modules(self):
        """The private modules of a rule answer the student's code with a refusal for any name
        looked up in them (torch's own code still uses them)."""
        for rule in self.rules:
            for name in rule.private:
                for module_name, module in list(sys.modules.items()):
                    if (module_name == name or module_name.startswith(name + ".")) and type(module) is types.ModuleType:
                        module.__class__ = _PrivateModule
                        _PRIVATE[module_name] = (self, rule)

    def _refusal(self, rule, called):
        message = f"your code called {called} (directly or through another function)"

        def refuse(*args, **kwargs):
            self.flag(rule, message)
            raise Violation(rule, message)  # even if the student's code replaced `flag`

        return refuse

    def run(self, fn, *args):
        """fn(*args) as the student's code, under the rules. Raises the first violation, even one
        the student's code caught."""
        try:
            with self._watching():
                value = fn(*args)
        except BaseException:
            self._report()
            raise
        self._report()
        return value

    @contextlib.contextmanager
    def _watching(self):
        """The mode on top of torch's function-mode stack, and the stack as it was afterwards."""
        if self.mode is None:
            yield
            return
        depth = torch._C._len_torch_function_stack()
        self.mode.__enter__()
        try:
            yield
        finally:
            intact = (torch._C._len_torch_function_stack() == depth + 1
                      and torch._C._get_function_stack_at(depth) is self.mode)
            while torch._C._len_torch_function_stack() > depth:
                torch._C._pop_torch_function_stack()
            if not intact:
                self.flag(TAMPERING, "your code changed torch's function-mode stack", raise_=False)

    def _report(self):
        violation, self.violation = self.violation, None
        if violation is not None:
            raise violation

    def flag(self, rule, called, raise_=True):
        """Record a violation (the first one is the one reported) and raise it."""
        violation = Violation(rule, called)
        if self.violation is None:
            self.violation = violation
        if raise_:
            raise violation

    def check_function(self, func):
        """The mode's check of one torch function."""
        name = getattr(func, "__name__", "")
        for part, rule in self.calls:
            if part in name:
                self.flag(rule, f"your code called {_display_name(func)}")

    def _audit(self, event, args):
        """The audit hook: imports of forbidden modules, opening or running forbidden files, ctypes
        and Python's mmap (`_foreign`)."""
        if event == "ctypes.dlopen" and not self.ctypes and "/" in os.fsdecode(args[0] or ""):
            # a library by its path, whoever asks (torch.cuda's pluggable allocator loads any: round 49's
            # a02); torch.cuda's own are loaded by name, from the system's library folders
            self.flag(FOREIGN, f"your code loaded {os.fsdecode(args[0])}")
        if event.startswith("ctypes.") and not self.ctypes:
            self._foreign(FOREIGN, f"ctypes ({event})")
            return
        if event == "mmap.__new__":
            self._foreign(MAPPED, "mmap")
            return
        if event not in ("import", "open", "exec"):
            return
        if event == "import":
            name = str(args[0])
            rule = self.modules.get(name.partition(".")[0])
            if rule is not None:
                self.flag(rule, f"your code imported {name}")
            for rule in self.rules:
                if any(name == private or name.startswith(private + ".") for private in rule.private) and \
                        not _torch_asked(sys._getframe(1)):
                    self.flag(rule, f"your code imported {name}, torch's own implementation")
            return
        target = getattr(args[0], "co_filename", None) if event == "exec" else args[0]
        try:
            path = os.path.realpath(os.fsdecode(target))
        except (TypeError, ValueError, OSError):  # a file descriptor, an odd object: not a path
            return
        if path == self.submission or (event == "open" and not _inside(path, _SECRET)):
            return
        for roots, rule in self.roots:
            if _inside(path, roots):
                self.flag(rule, f"your code {'opened' if event == 'open' else 'ran code from'} {path}")

    def _foreign(self, rule, used):
        """ctypes or mmap, unless the grader's code or torch.cuda's (NVML's device count) asked for it:
        the code of the frame that did is one of theirs, by identity (`_trusted_code`), not by the file
        name it shows, which code compiled by the student's may claim."""
        frame = sys._getframe(2)
        while frame is not None and (frame.f_code.co_filename.startswith(("<frozen ", _CTYPES))
                                     or frame.f_code.co_filename == __file__):
            frame = frame.f_back
        if frame is None or id(frame.f_code) not in _trusted_code():
            self.flag(rule, f"your code used {used}")


_TRUSTED = []  # [set of ids, the code objects themselves (kept alive, so that no id is reused)]


def _trusted_code():
    """The ids of every code object of the grader's modules and of torch.cuda's, as imported before
    any student's file: those that may use ctypes in a child. Taken once, before forget_modules."""
    if not _TRUSTED:
        codes = []
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__dict__", {}).get("__file__")
            if name == "torch.cuda" or name.startswith("torch.cuda.") or (isinstance(file, str) and _inside(file, [_GRADER])):
                for function in _functions_of(module, lambda owner: owner == name):
                    _nested(function.__code__, codes)
        _TRUSTED[:] = [{id(code) for code in codes}, codes]
    return _TRUSTED[0]


def _functions_of(module, owns):
    """The Python functions a module holds, with the methods (properties' too) of the classes in it
    whose module name `owns` accepts."""
    for value in list(vars(module).values()):
        members = [value, *vars(value).values()] if isinstance(value, type) and owns(str(value.__module__)) else [value]
        for member in members:
            for function in (member, getattr(member, "__func__", None), getattr(member, "fget", None),
                             getattr(member, "fset", None)):
                if isinstance(function, types.FunctionType) and owns(str(function.__module__)):
                    yield function


def _nested(code, into):
    """code and every code object in its constants (its nested functions, classes and lambdas)."""
    into.append(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _nested(const, into)


_forgotten = False  # whether this process (or the zygote it was forked from) ran forget_modules


def forget_modules():
    """Drop from sys.modules every module of the grader, the answer key and this project's tests
    (the code running keeps its references), so that the student's code can reach them only
    through an import, which the audit hook sees. The zygote does it once for all its children:
    in a freshly forked child, touching every module costs tens of milliseconds of page copies."""
    global _forgotten
    if _forgotten:
        return
    _trusted_code()
    FUNCTIONS[ANSWER_KEY] = FUNCTIONS.get(ANSWER_KEY, []) + _answer_key_functions()
    names = {module for rule in RULES for module in rule.modules}
    roots = [os.path.realpath(path) for rule in RULES for path in rule.paths] + [os.path.join(_PROJECT, "tests")]
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__dict__", {}).get("__file__")
        if name.partition(".")[0] in names or (isinstance(file, str) and _inside(file, roots)):
            del sys.modules[name]
    _forgotten = True


def _answer_key_functions():
    """[(name, function, the refusing code it gets)] of every function and method of the answer key's
    modules this process has loaded (the judge imports lumen_ref before the zygote forks, so its
    objects are in every child's memory, where gc.get_objects() finds them: round 21's a2 bound each
    exercise's names to them). A student's child gives each the code of a refusal (Guard.install);
    the reference's child, which loads the reference afresh, never installs a Guard."""
    roots = BY_ID[ANSWER_KEY].modules
    found = {}
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in roots:
            for function in _functions_of(module, lambda owner: owner.partition(".")[0] in roots):
                found[id(function)] = function
    return [(f"{function.__module__}.{function.__qualname__}", function, _refusing_code(function.__code__))
            for function in found.values()]


_TORCH = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_PRIVATE = {}  # guarded module name -> (guard, rule)


def _torch_asked(frame):
    """Whether the code that started an import (the first frame outside the import machinery and
    this file) is torch's own."""
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen ") or frame.f_code.co_filename == __file__):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(_TORCH)


# a kernel's line in torch._C._dispatch_dump: "CPU: registered at ...", "Autograd[alias]: registered at ..."
# (an "(inactive)" one, shadowed by another on its key, does not match; "debug:" is where the schema was defined)
_REGISTERED = re.compile(r"^(?!debug:)(?P<key>\w+)(?:\[alias\])?: registered at ", re.MULTILINE)


def kernel_keys(op):
    """The dispatch keys where torch registers a kernel for `op` ("aten::name.overload"), as the
    dispatcher's own table lists them: backends (CPU, CUDA, MkldnnCPU, SparseCPU, NestedTensorCPU,
    QuantizedCPU, Meta...), the autograd, tracing, batching and autocast layers, and the composite
    alias keys (which stand for every backend without a kernel of its own)."""
    return list(dict.fromkeys(_REGISTERED.findall(torch._C._dispatch_dump(op))))


def _forbidden_kernels():
    """{rule id: [(namespace, operator, its dispatch keys)]}: every operator and overload each rule's pattern
    names, in every namespace torch registers (aten's, and quantized::softmax, mkldnn's, prims'..., round 72's
    a03), with the keys its kernels are registered for. Read once, when this module is imported (in the judge,
    before the zygote forks), so that every child only registers."""
    names = [name.split("::", 1) for name in torch._C._dispatch_get_all_op_names() if "::" in name]
    return {rule.id: [(namespace, op, kernel_keys(f"{namespace}::{op}")) for namespace, op in names
                      if re.search(rule.kernels, op)]
            for rule in RULES if rule.kernels}


KERNELS = _forbidden_kernels()


def _python_function(name):
    """The function "module:qualname" names, if its module is loaded (torch imports them all)."""
    module_name, _, qualname = name.partition(":")
    value = sys.modules.get(module_name)
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value if isinstance(value, types.FunctionType) else None


def _refusing_code(code):
    """A code object that calls a placeholder constant with its arguments, to be replaced by the
    refusal (so that it needs no name the student's code could rebind), named as `code` and with
    as many free variables (a function's code can only be replaced by one with the same number).
    Compiled at import, before any audit hook would see it as code run from the grader's files."""
    free = [f"_free{i}" for i in range(len(code.co_freevars))]
    source = ("def outer():\n" + "".join(f"    {name} = None\n" for name in free)
              + "    def refused(*args, **kwargs):\n" + "".join(f"        {name}\n" for name in free)
              + f"        return {_PLACEHOLDER!r}(*args, **kwargs)\n    return refused\n")
    namespace = {}
    with warnings.catch_warnings():  # "'str' object is not callable": it will not be a str
        warnings.simplefilter("ignore")
        exec(compile(source, __file__, "exec"), namespace)
    return namespace["outer"]().__code__.replace(co_name=code.co_name, co_qualname=code.co_qualname)


def _implementations(rule):
    """{name: function} of torch's Python code that computes a rule's maths out of allowed operations:
    the functions its declaration names; the decompositions torch registers for the operators its
    kernel pattern names (torch._decomp's tables, which torch._inductor and others hand out too);
    and torch's Python references (torch._refs) named like its calls; each with every function it
    wraps (`__wrapped__`), so that no copy of the code escapes."""
    found = [_python_function(name) for name in rule.functions]
    if rule.kernels:
        from torch._decomp import global_decomposition_table  # imported with torch: no cost here

        found += [fn for table in global_decomposition_table.values() for op, fn in table.items()
                  if re.search(rule.kernels, str(op).removeprefix("aten."))]
    for module_name, module in list(sys.modules.items()):
        if rule.calls and (module_name == "torch._refs" or module_name.startswith("torch._refs.")):
            found += [fn for name, fn in vars(module).items() if any(part in name for part in rule.calls)]
    functions, seen = {}, set()
    for fn in found:
        while isinstance(fn, types.FunctionType) and id(fn) not in seen:
            seen.add(id(fn))
            functions[f"{fn.__module__}:{fn.__qualname__}"] = fn
            fn = getattr(fn, "__wrapped__", None)
    return functions


_PLACEHOLDER = "lumen: the refusal"
# {rule id: [(name, function, the refusing code it gets)]}
FUNCTIONS = {rule.id: [(name, function, _refusing_code(function.__code__))
                       for name, function in _implementations(rule).items()]
             for rule in RULES}


class _PrivateModule(types.ModuleType):
    """A private module of torch as the student's code sees it: any name looked up in it from
    outside torch (the student's file, or anything it calls) is a forbidden shortcut."""

    def __getattribute__(self, name):
        if name not in _IMPORT_NAMES:
            caller = sys._getframe(1).f_code.co_filename
            if not caller.startswith((_TORCH, "<frozen ")):
                module_name = types.ModuleType.__getattribute__(self, "__name__")
                guard, rule = _PRIVATE[module_name]
                guard.flag(rule, f"your code used {module_name}.{name}, torch's own implementation")
        return types.ModuleType.__getattribute__(self, name)


_IMPORT_NAMES = frozenset({"__name__", "__spec__", "__path__", "__file__", "__loader__", "__package__",
                           "__class__", "__getattr__", "__all__"})


@contextlib.contextmanager
def mirrored(forbidden):
    """The TorchFunctionMode of an exercise that forbids `forbidden`, checking every torch function
    as it does around the student's code but never refusing one: the reference's child times the
    reference under it, so that both sides of a timing pay the same for being watched."""
    watcher = Guard(forbidden, os.devnull)
    watcher.flag = lambda rule, called, raise_=True: None
    if watcher.mode is None:
        yield
        return
    with watcher.mode:
        yield


class _Mode(TorchFunctionMode):
    """Sees every torch function the student's code calls, by what it is, whatever its name there."""

    def __init__(self, guard):
        super().__init__()
        self.guard = guard

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.guard.check_function(func)
        return func(*args, **(kwargs or {}))
