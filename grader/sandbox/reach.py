"""What in a student's source reaches into the interpreter it runs in, read by the judge from the text
it sends the child, so that no code of the student's can hide it.

The child measures some things of the student's code from inside its own process: the rules that
refuse a forbidden shortcut, the inputs as a call left them, the device of what it made, the products
a projection runs, a cache's storage. Code in that process can find the grader's objects there and
forge any of it (docs/security.md: no refusal inside one CPython process makes them unreachable).
Finding them takes the interpreter's insides, which attention code never needs: the modules that
hold it (`sys`, `gc`, `ctypes`, `inspect`, ...), attributes that lead from an object to another's
code, globals or frames (`__globals__`, `__subclasses__`, `f_back`), torch's private names
(`torch._C`), attributes named at run time (`getattr(x, name)`), built-ins that run or reach code
(`exec`, `eval`, `compile`, `__import__`, `globals`, `vars`, `open`, `id`), and library functions that
run code held in data (a pickle, an annotation's text, a timer's statement).

The rule is an allowlist where one can be written, read from the source's syntax tree (string
annotations included, which libraries evaluate): the modules a student may import and the built-ins
they may call are listed (a built-in's name counts as the student's own only where a function binds
it, or the module's body did before it is read: elsewhere it may fall through to the built-in); dunders
are refused but for everyday ones; private names only where the student's code sets them on its own
objects (and torch has none such, unless its class body binds it); the frame and code attributes are
those the interpreter's own types have. Names that libraries turn into attributes are read as the
attributes they name: option strings, format fields, enum members, class patterns' `__match_args__`,
loops over names written in the code; the functions that take such names (`type`, `wraps`,
`__setattr__`, argparse's parse methods) must be called where they are named. A file that steps outside
gets its exercise held for a person (grader.grading.plugin withholds its points and says which line),
never a forged grade; the student learns at once what to take out.
"""

import ast
import builtins
import functools
import importlib
import operator
import pkgutil
import string
import sys
import time
from bisect import bisect_left
from _string import formatter_field_name_split
import types
import warnings
from dataclasses import dataclass

# What attention code imports (and debugging code beside it); a dotted module must keep to public names.
MODULES = frozenset({"torch", "math", "cmath", "random", "typing", "typing_extensions", "dataclasses",
                     "functools", "operator", "itertools", "collections", "enum", "abc", "numbers", "fractions",
                     "decimal", "statistics", "heapq", "bisect", "warnings", "time", "datetime", "copy", "re",
                     "json", "os", "pathlib", "logging", "pprint", "textwrap", "contextlib", "argparse", "__future__",
                     "einops"})
# Submodules of allowed modules that run code held in data or text: `logging.config` resolves "ext://gc..."
# and evaluates its files, numpy's `lib.format` unpickles, torch's benchmark timer runs its statement.
REFUSED_MODULES = frozenset({"logging.config", "numpy.lib.format", "torch.utils.benchmark"})
# Python's own modules that hold the interpreter or its memory, and the functions of allowed modules that
# run code held in data (a pickle, an annotation's text, a timer's statement), load code, register kernels
# in torch's dispatcher, hand out frames, or name attributes at run time: an attribute of that name
# (`torch.sys`, `np.ctypeslib.ctypes`, `torch.library`, `logging.config.dictConfig`, `operator.attrgetter`)
# reaches them from an allowed module.
INTERPRETER = frozenset({"sys", "gc", "ctypes", "ctypeslib", "inspect", "builtins", "importlib", "types",
                         "signal", "threading", "_thread", "weakref", "traceback", "linecache", "marshal", "pickle",
                         "copyreg", "code", "codeop", "dis", "tracemalloc", "faulthandler", "atexit", "subprocess",
                         "multiprocessing", "runpy", "pkgutil", "mmap", "resource", "pdb", "bdb", "ast", "site",
                         "stride_tricks", "hub", "package", "cpp_extension", "load_library", "load_inline", "Timer",
                         "attrgetter", "methodcaller", "get_type_hints", "ForwardRef", "runstring", "currentframe",
                         "dictConfig", "fileConfig", "library", "read_array", "npyio", "NpzFile", "open_memmap",
                         "model_zoo", "load_url", "serialization", "add_safe_globals", "safe_globals",
                         "get_annotations", "update_wrapper", "os", "evaluate_forward_ref", "fx", "jit",
                         "make_dataclass", "StrFormatStyle", "CUDAPluggableAllocator", "XPUPluggableAllocator",
                         "change_current_allocator", "lazy_property"})
# The keywords that make a library run code or read attributes held in data: torch and numpy unpickle
# (`torch.load(..., weights_only=False)`, `np.load(..., allow_pickle=True)`), and a pickle can call any
# function; annotations' text is evaluated (`get_annotations(..., eval_str=True)`); `functools.wraps` and
# `update_wrapper` copy the attributes their `assigned` and `updated` name (`("__globals__",)`).
CODE_KEYWORDS = frozenset({"allow_pickle", "weights_only", "pickle_module", "eval_str", "assigned", "updated"})
# The functions that take those keywords' values positionally too (`np.load(f, None, True)`,
# `functools.wraps(f, ("__globals__",))`): the most positional arguments they are called with, and
# never with `*` or `**`, whose contents the text does not show.
CODE_POSITIONS = {"load": 2, "wraps": 1, "type": 1}  # `type(name, bases, {"__instancecheck__": ...})`: round 31's a06
# What code may do with `os.environ`: read it. A variable set there changes what a library does
# (`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` made `torch.load` unpickle: round 31's a02).
ENVIRON_READS = frozenset({"get", "copy", "keys", "items", "values"})
# Modules read by the values attention code takes of them (`import sys`, `import os`, never under
# another name): anything else of theirs holds the interpreter (`sys.modules`) or works on file
# descriptors (`os.write` on the child's socket answered the judge in the student's stead: round 30's a01).
MODULE_VALUES = {"sys": frozenset({"maxsize", "float_info", "version_info", "byteorder", "stdout", "stderr"}),
                 "os": frozenset({"path", "environ", "getenv", "cpu_count", "getcwd", "getpid", "listdir",
                                  "makedirs", "sep", "linesep", "pathsep", "curdir", "pardir", "devnull", "name",
                                  "fspath", "PathLike", "urandom"})}
# The built-ins attention code calls: values, containers, iteration, exceptions (every exception class
# is allowed, below). `getattr`, `hasattr` and `setattr` with a name written in the code, read as an attribute.
BUILTINS = frozenset({"abs", "all", "any", "bool", "callable", "chr", "classmethod", "complex", "dict",
                      "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "int",
                      "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object",
                      "ord", "pow", "print", "property", "range", "repr", "reversed", "round", "set", "slice",
                      "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "zip", "NotImplemented",
                      "Ellipsis", "None", "True", "False", "__name__", "__debug__"})
NAMED_ATTRIBUTES = frozenset({"getattr", "hasattr", "setattr"})
# The dunders everyday classes use, and those operators call (as the `operator` module names them); any
# other (`__globals__`, `__subclasses__`, `__dict__`, `__code__`) leads from an object to another's insides.
DUNDERS = frozenset({"__init__", "__post_init__", "__call__", "__name__", "__qualname__", "__doc__", "__class__",
                     "__len__", "__iter__", "__next__", "__repr__", "__str__", "__enter__", "__exit__", "__hash__",
                     "__bool__", "__float__", "__int__", "__future__", "__main__", "__all__", "__slots__",
                     "__version__", "__author__", "__constants__", "__file__", "__setattr__"}
                    | {name for name in dir(operator) if name.startswith("__")
                       and isinstance(getattr(operator, name), types.BuiltinFunctionType)})
# Attributes of frames, code, tracebacks, generators and coroutines, as this interpreter names them.
_INSIDES = (types.FrameType, types.CodeType, types.TracebackType, types.GeneratorType, types.CoroutineType,
            types.AsyncGeneratorType, types.CellType)
FRAME_ATTRIBUTES = frozenset(name for kind in _INSIDES for name in dir(kind)
                             if name.startswith(("f_", "co_", "tb_", "gi_", "cr_", "ag_", "cell_")))
# The modules whose private names lead into torch's dispatcher, its modes and the interpreter: a private
# name of theirs is refused even where the student's code defines one like it (`self._C = ...`); so is
# one under which any module a student may import holds what is not allowed (`class H: _sys = None`,
# then `collections._sys`: `_Modules.leads_inside`).
TORCH_INSIDES = ("torch", "torch._C", "torch.utils", "torch.overrides", "torch.nn", "torch.nn.functional",
                 "torch.nn.modules.module", "torch.library", "torch.autograd", "numpy", "numpy.lib")
# Private names students give helpers of their own, whose objects in TORCH_INSIDES hand out nothing (an
# assertion, an operator, a printer, a version's parser, a counter): a student's `self._check(...)` is allowed
# (round 31's a09), and `self._version` (round 42's h01). The names of `torch._C`'s own (`_verbose`: h02)
# need `._C` first, which is refused.
STUDENT_HELPERS = frozenset({"_check", "_assert", "_softmax", "_stack", "_print", "_unique", "_pair", "_single",
                             "_triple", "_sync", "_warn", "_version", "_stats"})
# The public API of a named tuple, private by its names only (`self.fill._replace(length=0)`: round 47's h02).
NAMED_TUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})
# What a module or class may set of its own beside DUNDERS: its metadata.
# Not `__annotations__`: a library evaluates its text (round 30's a02 and a12).
DUNDER_SETTINGS = frozenset({"__all__", "__slots__", "__version__", "__author__", "__constants__"})
# Text whose subclasses' methods (`__str__`, `__format__`, `isidentifier`) decide what libraries that write
# code from names put there (`dataclasses.make_dataclass` formats field names into the source it runs:
# round 42's a04): a subclass of theirs may have no methods.
TEXT_TYPES = frozenset({"str", "bytes", "bytearray", "UserString"})
# Library functions and classes that set attributes whose names come from their keywords (`**d`), and the
# keywords that name an attribute a library sets (argparse's `dest=`): a name made at run time could be one
# that numpy reads memory by (`__array_interface__`: round 44's a02).
ATTRIBUTES_FROM_KEYWORDS = frozenset({"Namespace", "SimpleNamespace", "set_defaults"})
NAMES_FROM_DATA = frozenset({"dest"})
# argparse makes an attribute's name of each option string (`"--x-y"`: `x_y`) and sets it on whatever
# `parse_args(namespace=...)` is given; prefix characters of the code's choosing (`"++__instancecheck__"`)
# make any name of one (round 47's a07).
OPTION_STRINGS = frozenset({"add_argument"})
NAMES_FROM_PREFIXES = frozenset({"prefix_chars"})
# argparse sets its attributes on the object given as `namespace` (by keyword or second argument): only on
# a Namespace of its own may it set them (round 48's a02: the method under another name, given a metaclass).
PARSE_METHODS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"})
# Methods that give a module's objects private names of the code's choosing (`register_buffer("_tril", ...)`).
NAMING_METHODS = frozenset({"register_buffer", "register_parameter", "add_module", "register_module", "setattr"})
# Methods that may only be called where they are named: kept as a value, what they are given is not read
# (`_set = Meta.__setattr__`: round 50's a05; `functools.wraps(obj)` kept, its keywords changed later: a01).
CALLED_WHERE_NAMED = frozenset({"__setattr__"})
# Names a library sets attributes by (`setattr(obj, f.__name__, value)`: torch's `lazy_property`), which the
# code may read but not set (round 51's a02: `f.__name__ = made_at_run_time`).
READ_ONLY_NAMES = frozenset({"__name__", "__qualname__"})
# Attributes a library writes into code it runs, set only on the student's own objects (a dataclass's `Field`
# renamed after `dataclasses.fields(Base)`: a subclass's generated `__init__` then runs it: round 52's a02).
OWN_ONLY_WRITES = frozenset({"name"})
# enum's functional API sets a class's attributes by the names it is given (`Enum("E", [(dunder, f)])`: round
# 52's a03): they must be written in the code, plain identifiers.
ENUM_MAKERS = frozenset({"Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "ReprEnum"})
# The names of the built-ins that name attributes or scopes at run time, as attributes: a module's
# (`sys.modules["builtins"].getattr`: round 50's a07).
BUILTIN_ATTRIBUTES = frozenset({"getattr", "setattr", "hasattr", "delattr", "vars", "globals", "locals", "exec"})
# Methods that read the attributes their text names (`"{0.gi_frame.f_back}".format(g)`: round 47's a06), and
# logging's formatting by them (`style="{"`): the text must be written in the code, where it is read.
FORMAT_METHODS = frozenset({"format", "format_map"})
STYLES_BY_POSITION = frozenset({"%", "$"})  # logging's styles that read no attributes
# What `getattr` may not fetch by a written name either: the methods above, kept as values.
VALUE_REFUSED = FORMAT_METHODS | PARSE_METHODS | CALLED_WHERE_NAMED | frozenset(CODE_POSITIONS)
# The types a class pattern's positional part matches as a whole (`case int(n)`); any other class reads
# the attributes its `__match_args__` names, which a name made at run time may have set (round 47's a08),
# or a dataclass's fields (`gi_frame: object`) name, its `isinstance` answered by `abc`'s `register` (round
# 48's a01).
MATCHED_WHOLE = frozenset({"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str",
                           "tuple"})
# Methods that make `isinstance` answer what a class wants, so that a class pattern matches any object
# (`case Fields(x)` on a function, reading the attributes its `__match_args__` names).
REFUSED_METHODS = frozenset({"__instancecheck__", "__subclasscheck__", "__subclasshook__", "__match_args__"})
MAX_HELD_NAMES = 64  # names a variable naming an attribute may be bound to; past them, read as a name made at run time
MAX_READ_SECONDS = 30.0  # the judge's reading of one file, before any child runs; past it, the file is held unread
MAX_FORMAT_NESTING = 2  # levels of replacement fields in format specs read (str.format reads one)
MAX_ANNOTATION = 10_000  # characters of a string annotation read as code; a longer one is held unread
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
              ast.GeneratorExp)
_SCOPES = (*_FUNCTIONS, ast.ClassDef, ast.Module)


@dataclass(frozen=True)
class Reach:
    """One place where the source reaches into the interpreter: its line and what it names."""
    line: int
    names: str


class _Modules:
    """The modules a student's code may reach, as loaded here once the file's own imports are (the
    child loads the same), read by name: no list by hand of where the interpreter hides can be complete
    (round 41: `enum.bltns` is `builtins`, `logging.io` is `io`, `collections._sys` is `sys`)."""

    def __init__(self):
        self.modules = [vars(module) for _, module in _loaded_modules()]
        self.lazy = _lazy_submodules()
        self._aliases, self._inside, self._refused, self._spelled = {}, {}, None, None

    @classmethod
    def now(cls):
        """The modules loaded now (kept while no module is imported)."""
        global _MODULES
        if _MODULES is None or _MODULES[0] != len(sys.modules):
            _MODULES = (len(sys.modules), cls())
        return _MODULES[1]

    def alias(self, name):
        """Whether the public `name` is one under which a module holds what is not allowed: a module not
        allowed, a submodule loaded on first use and not read, or a function or class of a module not
        allowed where no module holds an allowed one under that name and no type attention code handles
        has it (`typing.cast` beside `torch.xpu.cast`, ctypes')."""
        if name not in self._aliases:
            self._aliases[name] = self._alias(name)
        return self._aliases[name]

    def _alias(self, name):
        return name in self.lazy or _an_alias(name, set(self._kinds(name)))

    def _kinds(self, name):
        """`_kind` of what each module holds under `name`."""
        with warnings.catch_warnings():  # a deprecated name warns when its value is looked at
            warnings.simplefilter("ignore")
            return [_kind(value) for names in self.modules if (value := names.get(name, _NOTHING)) is not _NOTHING]

    def leads_inside(self, name):
        """Whether the private `name` of a module a student may import leads somewhere: a module, or a
        function or class that is not one of their public names under its own (`torch.library._dtype`
        is `torch.dtype`; a type alias leads nowhere; nor does one of STUDENT_HELPERS). Asked only of
        the names a student's code defines."""
        if name in STUDENT_HELPERS:
            return False
        if name not in self._inside:
            self._inside[name] = bool({"outside", "foreign"} & set(self._kinds(name))) or \
                any(self._leads(vars(module)[name]) for module in _torch_insides()
                    if name in vars(module) and not _private(module.__name__.rpartition(".")[2]))
        return self._inside[name]

    def _leads(self, value):
        """Whether a private value of torch's insides leads anywhere but to a public name of its own."""
        if isinstance(value, types.ModuleType):
            return True
        public = getattr(value, "__name__", "_")
        return callable(value) and not (public[:1] != "_" and not self.alias(public)
                                        and any(names.get(public) is value for names in self.modules))

    def refused_names(self):
        """Every name of theirs an attribute may not have (a name made at run time must steer clear of
        all of them): the private ones, and the aliases."""
        if self._refused is None:
            kinds = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for names in self.modules:
                    for name, value in list(names.items()):
                        if not _dunder(name):
                            kinds.setdefault(name, set()).add("private" if _private(name) else _kind(value))
            self._refused = {name for name, found in kinds.items() if "private" in found or _an_alias(name, found)}
        return self._refused

    def some_refused(self, start="", end=""):
        """Whether a name a made-up attribute may not have starts with `start` and ends with `end` (one of
        them given): looked up in sorted lists, as a file may ask it of thousands of f-strings."""
        if self._spelled is None:
            names = {*FRAME_ATTRIBUTES, *INTERPRETER, *self.lazy, *self.refused_names()}
            self._spelled = sorted(names), sorted(name[::-1] for name in names)
        names, text = (self._spelled[0], start) if start else (self._spelled[1], end[::-1])
        at = bisect_left(names, text)
        return at < len(names) and names[at].startswith(text)


def _kind(value):
    """What a module holds under a public name, for `_an_alias`: "outside" (a module not allowed),
    "allowed" (a function or class of an allowed module, or an allowed built-in), "foreign" (a function
    or class of a module not allowed), or None (a value, or an allowed module)."""
    if isinstance(value, types.ModuleType):
        return None if _allowed_module(value.__name__) else "outside"
    if not callable(value):
        return None
    return "allowed" if id(value) in _allowed_builtins() or _allowed_module(_module_of(value)) else "foreign"


def _an_alias(name, kinds):
    """Whether a public name the modules hold as `kinds` (`_kind`) leads out of them (`_Modules.alias`)."""
    return "outside" in kinds or ("foreign" in kinds and "allowed" not in kinds and name not in _handled_attributes())


_MODULES = None  # (how many modules were loaded, the _Modules read of them)
_NOTHING = object()


def _allowed_module(name):
    """Whether a module of this name is one a student's code may hold: one of MODULES or inside one (its
    accelerator, `_json` of json, counts as its own), but for those read only by their values (`sys`, `os`)."""
    top = (name or "").partition(".")[0]
    return top.lstrip("_") in MODULES and top not in MODULE_VALUES


def _module_of(value):
    """The name of the module a function or class comes from (a bound method's: its object's)."""
    held = getattr(value, "__self__", None)
    if getattr(value, "__module__", None) is None and held is not None:
        return held.__name__ if isinstance(held, types.ModuleType) else type(held).__module__
    return getattr(value, "__module__", None)


def _loaded_modules():
    """(name, module) of every module loaded here that a student's code may import."""
    return [(name, module) for name, module in list(sys.modules.items())
            if isinstance(module, types.ModuleType) and _allowed_module(name)]


def _lazy_submodules():
    """{name: package} of the submodules not loaded of the packages that import one when it is first
    asked for (a module `__getattr__`: numpy's `np.fft`, torch's `torch.onnx`)."""
    found = {}
    for name, module in _loaded_modules():
        if "__getattr__" in vars(module) and hasattr(module, "__path__"):
            for submodule in pkgutil.iter_modules(module.__path__):
                if f"{name}.{submodule.name}" not in sys.modules:
                    found.setdefault(submodule.name, name)
    return found


def _load_what_it_names(tree):
    """Import here what the file imports and the submodules its attributes would load on first use
    (those a package lists as its own: `np.random`), so that what they hold is read before the file's
    names are (`_Modules`); anything that cannot be imported here cannot be in the child either."""
    wanted = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            wanted += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            wanted += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    lazy = _lazy_submodules()
    named = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for name in sorted(named & set(lazy)):
        package = sys.modules.get(lazy[name])
        if package is not None and name in dir(package) and not _private(name) and name not in INTERPRETER:
            wanted.append(f"{lazy[name]}.{name}")
    for name in wanted:
        if _module(name) is None and name not in sys.modules:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    importlib.import_module(name)
            except Exception:  # noqa: BLE001 - not a module (`from typing import Optional`), or not importable
                pass


@functools.lru_cache(maxsize=None)
def _torch_insides():
    """The modules of TORCH_INSIDES (imported once; torch is imported by the judge anyway)."""
    found = []
    for name in TORCH_INSIDES:
        try:
            found.append(importlib.import_module(name))
        except ImportError:
            continue
    return tuple(found)


@functools.lru_cache(maxsize=None)
def _allowed_builtins():
    return frozenset(id(getattr(builtins, name)) for name in dir(builtins) if _allowed_builtin(name))


@functools.lru_cache(maxsize=None)
def _handled_attributes():
    """The attributes of the types attention code handles: a name of theirs is never an alias."""
    import numpy
    import torch

    return frozenset(name for kind in (torch.Tensor, torch.nn.Module, numpy.ndarray, str, bytes, list, dict, set,
                                       tuple, int, float, complex) for name in dir(kind))


@functools.lru_cache(maxsize=64)
def reaches(source):
    """The places in `source` (a module's text) that reach into the interpreter, in line order; () for
    attention code. A text whose syntax tree cannot be read here (nested beyond the parser's depth)
    is one place: a file the judge cannot read through is not one it vouches for. Kept for the next
    child of the same file."""
    try:
        tree = ast.parse(source)
        _load_what_it_names(tree)
        found = _Scopes(tree, _Modules.now()).reached()
    except (SyntaxError, ValueError):
        return ()  # its import fails first, with the reason (a line, a null byte)
    except (RecursionError, MemoryError):
        return (Reach(0, "a file too deeply nested to read through"),)
    return tuple(sorted(set(found), key=lambda reach: (reach.line, reach.names)))


class _Scopes:
    """The module's nodes, each with the scope it runs in (a function's defaults and decorators run in
    the scope around it), and the names each function binds: what a name means where it is read."""

    def __init__(self, tree, modules):
        self.modules = modules  # _Modules: what the names of the modules a student may import hold
        self.scope_of, self.parent = {}, {id(tree): None}
        self.bound, self.declared_global = {id(tree): set()}, {id(tree): set()}
        self.nodes = []
        self.unread = set()  # nodes not read: a main block's, and those read with their parent
        self.private_sets = []  # (name, receiver node or None, scope): where the code sets a private name
        self._own_private = None  # those set in a class body, or on a method's own `self` or `cls`
        self.above = {}  # id(node) -> the node it is part of
        self.stores = {}  # (id(scope), name) -> how the scope binds it: each a Name it stores, or None (otherwise)
        self.declared = set()  # names declared global or nonlocal anywhere
        self.tree = tree
        self._module_names = self._definitions = None  # read when first needed (`_set_before`, `_own`)
        self._classes = self._names_read = self._bound_anywhere = None  # likewise (`_class_of`, `_loads`,
                                                                         # `_matched_whole`)
        self._iterated_only = {}  # name -> `_only_iterated`
        self._held_texts = {}  # (id(scope), name, how read) -> `_held`'s answer, for a variable's every read
        self._refused_sets = {}  # (names, writes, receiver's kind) -> `_refused_names`'s answer
        pending = [(tree, tree)]
        while pending:  # breadth first, without recursion: any depth the parser took
            node, scope = pending.pop()
            self.nodes.append(node)
            self.scope_of[id(node)] = scope
            self._note_binding(node, scope)
            for child, child_scope in self._children(node, scope):
                if isinstance(child, ast.AST):
                    self.above[id(child)] = node
                    if child_scope is not scope and id(child_scope) not in self.bound:
                        self.parent[id(child_scope)] = scope
                        self.bound[id(child_scope)], self.declared_global[id(child_scope)] = set(), set()
                    pending.append((child, child_scope))
        # the grader's import never runs a main block, unless the file binds `__name__` in any way
        # (`case __name__:` in round 30's a03): the student's own tries are not read
        if not any("__name__" in names for names in (*self.bound.values(), *self.declared_global.values())):
            self.unread.update(id(node) for block in tree.body if _is_main_block(block)
                               for statement in block.body for node in ast.walk(statement))

    def _children(self, node, scope):
        """(child, the scope it runs in) of one node."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            outside = [*arguments.defaults, *filter(None, arguments.kw_defaults)]
            if not isinstance(node, ast.Lambda):
                outside += [*node.decorator_list, *filter(None, [node.returns])]
                outside += [a.annotation for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                                   arguments.vararg, arguments.kwarg) if a is not None and a.annotation]
            inside = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                      *filter(None, [arguments.vararg, arguments.kwarg])]
            body = node.body if isinstance(node.body, list) else [node.body]
            return [(child, scope) for child in outside] + [(child, node) for child in (*inside, *body)]
        if isinstance(node, ast.NamedExpr):  # `(x := ...)` in a comprehension binds x in the scope around it
            target = scope
            while isinstance(target, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                target = self.parent[id(target)]
            return [(node.target, target), (node.value, scope)]
        if isinstance(node, ast.ClassDef):
            outside = [*node.decorator_list, *node.bases, *node.keywords]
            return [(child, scope) for child in outside] + [(child, node) for child in node.body]
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            first, rest = node.generators[0].iter, [child for child in ast.iter_child_nodes(node)]
            return [(first, scope)] + [(child, node) for child in rest if child is not node.generators[0]] + \
                [(child, node) for child in ast.iter_child_nodes(node.generators[0]) if child is not first]
        return [(child, scope) for child in ast.iter_child_nodes(node)]

    def _note_binding(self, node, scope):
        bound = self.bound[id(scope)]
        name = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            name = node.id
            if isinstance(scope, ast.ClassDef) and _private(node.id):
                self.private_sets.append((node.id, None, scope))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr):
            self.private_sets.append((node.attr, node.value, scope))
        elif isinstance(node, ast.Call) and (called := _called_name(node.func)) in NAMING_METHODS and node.args:
            receiver, named = (node.args[0], node.args[1] if len(node.args) > 1 else None) if called == "setattr" \
                else (getattr(node.func, "value", None), node.args[0])
            if isinstance(named, ast.Constant) and isinstance(named.value, str) and _private(named.value):
                self.private_sets.append((named.value, receiver, scope))  # `register_buffer("_tril", ...)`
        elif isinstance(node, ast.arg):
            name = node.arg
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
            if isinstance(scope, ast.ClassDef) and _private(node.name):
                self.private_sets.append((node.name, None, scope))
        elif isinstance(node, ast.alias):
            name = (node.asname or node.name).partition(".")[0]
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            name = node.name
        elif isinstance(node, ast.MatchMapping) and node.rest:
            name = node.rest
        elif isinstance(node, ast.Global):
            self.declared_global[id(scope)].update(node.names)
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            self.declared.update(node.names)
        if name is not None:
            bound.add(name)
            stored = node if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) else None
            self.stores.setdefault((id(scope), name), []).append(stored)

    def local(self, name, scope):
        """Whether `name`, read in `scope`, is surely a function's own variable: a function binds it
        (and does not declare it global). At module or class level a binding may not have happened
        (`if False: eval = None`, `del eval`), and the built-in answers instead."""
        while scope is not None:
            if isinstance(scope, _FUNCTIONS):
                if name in self.declared_global[id(scope)]:
                    return False
                if name in self.bound[id(scope)]:
                    return True
            scope = self.parent.get(id(scope))
        return False

    def written_names(self, node, scope):
        """The names an argument naming an attribute can only be, as far as the text says: `_written_name`'s,
        or those a variable holds that is bound only to written text, by assignments or loops over written
        names (`for name, n in heads.items()` of a dict written in the code: round 47's h01); None where
        a name may be made at run time."""
        written = _written_name(node, self.modules)
        if written is not None:
            return frozenset({written})
        held = self._held(node.id, scope, self._stored_text) if isinstance(node, ast.Name) else None
        return held if held is not None and len(held) <= MAX_HELD_NAMES else None

    def _refused_names(self, names, on=None, writes=False):
        """The names of `names` (a `written_names` answer) that `_refused` refuses as attributes of `on`, in
        order: asked once per set of names and kind of receiver (a thousand reads of one variable bound to
        a thousand names each asked of every name: round 59's a03 held the judge for minutes)."""
        own = on is not None and self._own_object(on)
        key = (names, writes, own, id(self._class_of(on)) if own else None)
        if key not in self._refused_sets:
            self._refused_sets[key] = [name for name in sorted(names) if self._refused(name, on, writes)]
        return self._refused_sets[key]

    def _held(self, name, scope, read):
        """The union of `read(store)` over every binding of the variable `name` read in `scope`, or None
        where one binds it otherwise (an argument, an import, `global`) or `read` finds no text."""
        home = scope
        while home is not None and name not in self.bound[id(home)]:
            home = self.parent.get(id(home))
            while isinstance(home, ast.ClassDef):  # the functions in a class body do not see its names
                home = self.parent.get(id(home))
        key = (id(home), name, read.__name__)
        if key not in self._held_texts:  # a loop's variable read in each of a thousand loops: once
            stores = self.stores.get((id(home), name)) if home is not None and name not in self.declared else None
            found = set()
            for store in stores or [None]:
                texts = read(store) if store is not None else None
                if texts is None:
                    found = None
                    break
                found |= texts
            self._held_texts[key] = None if found is None else frozenset(found)
        return self._held_texts[key]

    def _stored_text(self, store):
        """The texts one binding of a variable may give it: a written text, or each item of a loop over them."""
        above = self.above.get(id(store))
        if _assigned(above, store):
            return {above.value.value} if isinstance(above.value, ast.Constant) and isinstance(above.value.value,
                                                                                                str) else None
        position, target = None, store
        if isinstance(above, ast.Tuple):
            position, target, above = above.elts.index(store), above, self.above.get(id(above))
        loop = above.generators[0] if isinstance(above, (ast.ListComp, ast.SetComp, ast.DictComp,
                                                         ast.GeneratorExp)) else above
        if not isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)) or loop.target is not target:
            return None
        items = loop.iter
        if position is None:
            return self._items(items)
        if isinstance(items, ast.Call) and not items.keywords:
            called = _called_name(items.func)
            if called == "items" and isinstance(items.func, ast.Attribute) and position == 0 and not items.args:
                return self._items(items.func.value)
            if called == "zip" and isinstance(items.func, ast.Name) and position < len(items.args):
                return self._items(items.args[position])
            if called == "enumerate" and isinstance(items.func, ast.Name) and position == 1 and len(items.args) == 1:
                return self._items(items.args[0])
        return None

    def _items(self, node):
        """The texts iterating `node` gives, where it is written text: a tuple, list or set of texts, a
        dict's keys, `.keys()` of one, or a variable bound only to such."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" \
                and not node.args and not node.keywords:
            node = node.func.value
        if isinstance(node, ast.Name):
            return self._held(node.id, self.scope_of[id(node)], self._stored_items)
        parts = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(
            node, (ast.Tuple, ast.List, ast.Set)) else [None]
        if all(isinstance(part, ast.Constant) and isinstance(part.value, str) for part in parts):
            return {part.value for part in parts}
        return None

    def _stored_items(self, store):
        """The texts iterating what one assignment binds gives (`heads = {"q_proj": ..., "k_proj": ...}`): a
        list, set or dict only where the variable is read nowhere but as what a loop iterates, which no
        code then changes (`box[0] = name`, `box.append(name)`: round 49's a01)."""
        above = self.above.get(id(store))
        if not (_assigned(above, store) and isinstance(above.value, (ast.Tuple, ast.List, ast.Set, ast.Dict))):
            return None
        if not isinstance(above.value, ast.Tuple) and not self._only_iterated(store.id):
            return None
        return self._items(above.value)

    def _iterated(self, node):
        """Whether `node` is only iterated where it stands: what a loop iterates, or `.keys()` or `.items()`
        of it there, or an argument of the `zip` or `enumerate` there."""
        above = self.above.get(id(node))
        if isinstance(above, ast.Attribute) and above.attr in ("keys", "items") and self._called(above):
            node = self.above[id(above)]
        elif isinstance(above, ast.Call) and _called_name(above.func) in ("zip", "enumerate") and node in above.args:
            node = above
        above = self.above.get(id(node))
        loop = above.generators[0] if isinstance(above, (ast.ListComp, ast.SetComp, ast.DictComp,
                                                         ast.GeneratorExp)) else above
        return isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)) and loop.iter is node

    def reached(self):
        found = []
        bindings = None
        deadline = time.monotonic() + MAX_READ_SECONDS
        for index, node in enumerate(self.nodes):
            if index % 1024 == 0 and time.monotonic() >= deadline:  # a shape that costs more than its size
                return found + [Reach(getattr(node, "lineno", 0), f"a file that takes more than {MAX_READ_SECONDS:g} "
                                                                   "s to read through")]
            if id(node) in self.unread:
                continue
            for names in self._reached(node):
                found.append(Reach(getattr(node, "lineno", 0), names))
            for annotation in _annotations(node):  # text that typing.get_type_hints would evaluate
                for text in _texts(annotation):  # `x: "T"`, and within one: `list["T"]` (round 31's a03)
                    found.extend(self._annotation(text))
                if any(isinstance(part, (ast.JoinedStr, ast.Call)) or (isinstance(part, ast.BinOp)
                         and not isinstance(part.op, ast.BitOr)) for part in ast.walk(annotation)):
                    found.append(Reach(annotation.lineno, "an annotation made at run time"))
                bindings = bindings if bindings is not None else _bindings(self.nodes, self.scope_of)
                found += [Reach(annotation.lineno, f"an annotation that may hold text ({name})")
                          for name in _held_text(annotation, bindings)]
        return found

    def _annotation(self, node):
        if len(node.value) > MAX_ANNOTATION:
            return [Reach(node.lineno, "a string annotation too long to read")]
        try:
            expression = ast.parse(node.value.strip(), mode="eval")
        except (SyntaxError, ValueError):
            return []  # no expression: nothing a library could evaluate
        inner = _Scopes(ast.Module(body=[ast.Expr(expression.body)], type_ignores=[]), self.modules)
        return [Reach(node.lineno, f"{reach.names} (in a string annotation)") for reach in inner.reached()]

    def _reached(self, node):
        """What one node reaches (names, each a short text), marking in `unread` the children it read."""
        scope = self.scope_of[id(node)]
        if isinstance(node, ast.Import):
            return [reached for alias in node.names if (reached := _module(alias.name, alias.asname))]
        if isinstance(node, ast.ImportFrom):
            if node.level:
                return [f"from {'.' * node.level}{node.module or ''} import ..."]
            module = node.module or ""
            if module in MODULE_VALUES:
                return [f"from {module} import {alias.name}" for alias in node.names
                        if alias.name not in MODULE_VALUES[module]]
            found = [reached] if (reached := _module(module)) else []
            return found + [f"from {module} import {alias.name}" for alias in node.names
                            if alias.name == "*" or _private(alias.name) or alias.name in INTERPRETER
                            or alias.name in CODE_POSITIONS and alias.asname not in (None, alias.name)
                            or _module(f"{module}.{alias.name}") and not _module(module)
                            or self.modules.alias(alias.name)]
        if isinstance(node, ast.keyword) and node.arg in CODE_KEYWORDS:
            return [f"{node.arg}="]
        if isinstance(node, ast.keyword) and node.arg is not None and _dunder(node.arg) and node.arg not in DUNDERS:
            return [f"{node.arg}="]  # an attribute of an object a library makes (`Namespace(__array_interface__=...)`)
        if isinstance(node, ast.keyword) and node.arg in NAMES_FROM_DATA:
            names = self.written_names(node.value, scope)
            if names is None:
                return [f"{node.arg}= of a name not written in the code"]
            return [f"{node.arg}={name!r}" for name in self._refused_names(names)]
        if isinstance(node, ast.keyword) and node.arg in NAMES_FROM_PREFIXES:
            return [f"{node.arg}="]
        if isinstance(node, ast.Call) and _called_name(node.func) in OPTION_STRINGS:
            return self._option_strings(node, scope)
        if isinstance(node, ast.Call) and _called_name(node.func) in ATTRIBUTES_FROM_KEYWORDS:
            if any(keyword.arg is None for keyword in node.keywords):
                return [f"{_called_name(node.func)}(**...): attributes of names not written in the code"]
            return [f"{keyword.arg}=" for keyword in node.keywords if self._refused(keyword.arg)]
        if isinstance(node, ast.Attribute) and node.attr == "__init__" and not (
                isinstance(node.value, ast.Call) and _called_name(node.value.func) == "super") and (
                not self._called(node) or any(keyword.arg is None for keyword in self.above[id(node)].keywords)):
            return [".__init__ of a class given names made at run time"]  # `Namespace.__init__(Meta, **names)`
        if isinstance(node, ast.Call) and _called_name(node.func) in ENUM_MAKERS and not _enum_names(node):
            return [f"{_called_name(node.func)}() of member names not written in the code"]
        if isinstance(node, ast.Attribute) and node.attr in CALLED_WHERE_NAMED and not self._called(node):
            return [f".{node.attr} not called where it is named"]
        if isinstance(node, ast.Call) and _called_name(node.func) == "wraps" and not self._own(node.func) \
                and not self._applied(node):
            return ["wraps() not applied where it is made"]  # its partial changed later: round 50's a01 to a04
        if isinstance(node, ast.Attribute) and node.attr in PARSE_METHODS and not self._called(node):
            return [f".{node.attr} not called where it is named"]
        if isinstance(node, ast.Call) and _called_name(node.func) in PARSE_METHODS and (
                len(node.args) > 1 or any(isinstance(arg, ast.Starred) for arg in node.args)
                or any(keyword.arg in (None, "namespace") for keyword in node.keywords)):
            return [f"{_called_name(node.func)}() given an object to set its attributes on"]
        if isinstance(node, ast.keyword) and node.arg == "style" and not self._text_styles(node, node.value):
            return ["style= of logging's {} formatting, with text not written in the code"]
        if isinstance(node, ast.Call) and _called_name(node.func) == "Formatter" and len(node.args) > 2 \
                and not self._text_styles(node, node.args[2]):
            return ["logging.Formatter of {} formatting, with text not written in the code"]
        if isinstance(node, ast.ClassDef) and any(_called_name(base) == "Formatter" for base in node.bases):
            return [f"class {node.name}: a logging formatter of its own"]  # its style and text: any
        if isinstance(node, ast.Attribute) and node.attr in FORMAT_METHODS and self._texts(node.value) is None:
            return [f".{node.attr} of text not written in the code"]
        if isinstance(node, ast.Attribute) and node.attr in CODE_POSITIONS and not self._called(node) \
                and not self._own(node):
            return [f".{node.attr} not called where it is named"]  # `load = torch.load; load(f, None, module)`
        if isinstance(node, ast.Call) and (called := _called_name(node.func)) in CODE_POSITIONS \
                and not self._own(node.func) and (
                len(node.args) > CODE_POSITIONS[called] or any(isinstance(arg, ast.Starred) for arg in node.args)
                or any(keyword.arg is None for keyword in node.keywords)):
            return [f"{called}() with arguments past its first {CODE_POSITIONS[called]}"]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                node.name in REFUSED_METHODS or _dunder(node.name) and node.name not in DUNDERS):
            return [f"def {node.name}"]  # `__array_interface__` hands numpy any address: round 44's a02
        if isinstance(node, ast.ClassDef) and any(_called_name(base) in TEXT_TYPES for base in node.bases) \
                and any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for item in node.body):
            return [f"class {node.name}: text with methods of its own"]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__setattr__":
            named = node.args[-2] if len(node.args) in (2, 3) else None  # (obj,) name, value
            name = _written_name(named, self.modules) if named is not None else None
            written_on = node.args[0] if len(node.args) == 3 else node.func.value
            if name is None or self._refused(name, written_on, writes=True):
                return [f"__setattr__ of a name {'not written in the code' if name is None else repr(name)}"]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if self._refused_text(node):
                return [repr(node.value)]  # a name a library reads by: `type(..., {"__instancecheck__": f})`
            return [f"{{….{name}}} in a format string" for name in _format_attributes(node.value)
                    if self._refused(name)]  # `"{0.gi_frame}".format(g)`
        if isinstance(node, ast.MatchClass):  # `case Exception(__traceback__=tb)` reads that attribute
            found = [f".{name}" for name in node.kwd_attrs if self._refused(name)]
            if node.patterns and not self._matched_whole(node.cls):
                found.append(f"case {_called_name(node.cls)}(...): attributes its __match_args__ names")
            return found
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in MODULE_VALUES:
                self.unread.add(id(node.value))
                if (node.value.id, node.attr) == ("os", "environ") and not self._read_only(node):
                    return ["os.environ changed or handed on"]
                return [] if node.attr in MODULE_VALUES[node.value.id] else [f"{node.value.id}.{node.attr}"]
            writes = isinstance(node.ctx, (ast.Store, ast.Del))
            return [f".{node.attr}"] if self._refused(node.attr, node.value, writes) else []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NAMED_ATTRIBUTES \
                and not self.local(node.func.id, scope) and len(node.args) > 1 and not node.keywords:
            names = self.written_names(node.args[1], scope)
            if names is not None:
                self.unread.add(id(node.func))  # a name written in the code: read as the attribute it is
                refused = self._refused_names(names, node.args[0], node.func.id == "setattr")
                return [f"{node.func.id}(..., {name!r})" for name in sorted({*refused, *(names & VALUE_REFUSED)})]
        if isinstance(node, ast.Name):
            return self._name(node, scope)
        return []

    def _name(self, node, scope):
        name = node.id
        if name in MODULE_VALUES:
            return [name]  # the module itself, not one of its values
        if _dunder(name):  # a module's or class's own setting (`__all__ = [...]`) is allowed, not `__match_args__`
            refused = (name not in DUNDERS and name not in BUILTINS) or (
                name in READ_ONLY_NAMES and not isinstance(node.ctx, ast.Load))
            return [name] if refused and (isinstance(node.ctx, ast.Load) or name in ("__builtins__", *REFUSED_METHODS)
                                          or name not in DUNDER_SETTINGS) else []
        if name in CODE_POSITIONS and isinstance(node.ctx, ast.Load) and not self._called(node) \
                and not self._type_tested(node) and not self.local(name, scope) and not self._set_before(node):
            return [f"{name} not called where it is named"]  # `T = type; T(name, bases, names)`: round 49
        if not isinstance(node.ctx, ast.Load) or not hasattr(builtins, name) or _allowed_builtin(name) \
                or self.local(name, scope) or self._set_before(node):
            return []
        if name in NAMED_ATTRIBUTES:
            return [f"{name} with a name not written in the code"]
        return [f"{name}()" if callable(getattr(builtins, name)) else name]

    def _set_before(self, node):
        """Whether the module's own variable shadows the built-in where `node` reads its name: a statement of
        the module's body binds it, ending before that line (`input = torch.randn(2, 3)` in a notebook's
        cell: round 47's h05), and nothing deletes it (`del`, `except ... as` that name)."""
        if self._module_names is None:
            deleted = {part.id for part in self.nodes if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Del)}
            deleted |= {part.name for part in self.nodes if isinstance(part, ast.ExceptHandler) and part.name}
            self._module_names = {}
            for statement in self.tree.body:
                for name in _names_bound_by(statement):
                    if name not in deleted:
                        self._module_names.setdefault(name, statement.end_lineno)
        return node.lineno > self._module_names.get(node.id, float("inf"))

    def _texts(self, node):
        """The texts `node` may hold, where it is written text (or a variable bound only to such), else None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        return self._held(node.id, self.scope_of[id(node)], self._stored_text) if isinstance(node, ast.Name) else None

    def _text_styles(self, call, style):
        """Whether logging's formatting given `style` (a keyword of `call`, or its argument) reads no attribute
        that text made at run time names: a style that reads none, or a format written in the code (whose
        fields are read where it stands)."""
        if isinstance(style, ast.Constant) and style.value in STYLES_BY_POSITION:
            return True
        call = self.above.get(id(call)) if isinstance(call, ast.keyword) else call
        text = call.args[0] if isinstance(call, ast.Call) and call.args else next(
            (other.value for other in getattr(call, "keywords", []) if other.arg in ("fmt", "format")), None)
        return text is not None and self._texts(text) is not None

    def _option_strings(self, call, scope):
        """What an argparse `add_argument` call reaches: an option string not written in the code, or one
        whose attribute (`--x-y`: `x_y`) is refused or a dunder."""
        if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
            return ["add_argument(*...): options not written in the code"]
        found = []
        for arg in call.args:
            texts = self.written_names(arg, scope)
            if texts is None:
                found.append("add_argument() of an option not written in the code")
                continue
            names = frozenset(text.lstrip("-").replace("-", "_") for text in texts)
            found += [f"add_argument() of an attribute {name!r}" for name in sorted(names)
                      if _dunder(name) or name in self._refused_names(names)]
        return found

    def _own(self, func):
        """Whether `func` (a name or attribute) is one the file's own code binds: its root is bound in the
        file, but not by an import (`self.load(k, v, start)`: round 49's h01; `torch.load` is not)."""
        if self._definitions is None:
            self._definitions = _bindings(self.nodes, self.scope_of)
        kinds = self._definitions.get(_root(func) if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
        return bool(kinds) and "import" not in kinds

    def _applied(self, call):
        """Whether what `call` makes is applied at once: a decorator, or called where it is made (`wraps(f)(g)`)."""
        above = self.above.get(id(call))
        return (isinstance(above, ast.Call) and above.func is call) or (
            isinstance(above, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and call in above.decorator_list)

    def _type_tested(self, node):
        """Whether `node` (`type`) stands where it hands out nothing: tested against (`isinstance(c, (int,
        type))`), a class's base (`class M(type)`) or in an annotation (`x: type[int]`)."""
        part, above = node, self.above.get(id(node))
        while isinstance(above, (ast.Tuple, ast.Subscript, ast.BinOp)):
            part, above = above, self.above.get(id(above))
        if isinstance(above, ast.Call) and _called_name(above.func) in ("isinstance", "issubclass"):
            return part in above.args[1:]
        if isinstance(above, ast.ClassDef):
            return part in above.bases
        return part in _annotations(above)

    def _called(self, node):
        """Whether `node` is the function of the call it stands in (`p.parse_args(...)`, not `f = p.parse_args`)."""
        above = self.above.get(id(node))
        return isinstance(above, ast.Call) and above.func is node

    def _matched_whole(self, cls):
        """Whether a class pattern's positional part matches the subject itself (`case int(n)`): a built-in
        type's name, not bound by the file."""
        if self._bound_anywhere is None:
            self._bound_anywhere = set().union(*self.bound.values())
        return isinstance(cls, ast.Name) and cls.id in MATCHED_WHOLE and cls.id not in self._bound_anywhere

    def _read_only(self, node):
        """Whether `node` (`os.environ`) is only read where it stands: `os.environ.get(...)`,
        `os.environ[key]`, `key in os.environ`."""
        above = self.above.get(id(node))
        if isinstance(above, ast.Attribute) and above.attr in ENVIRON_READS:
            return isinstance(self.above.get(id(above)), ast.Call) and self.above[id(above)].func is above
        if isinstance(above, ast.Subscript):
            return above.value is node and isinstance(above.ctx, ast.Load)
        return isinstance(above, ast.Compare) and node in above.comparators and \
            all(isinstance(op, (ast.In, ast.NotIn)) for op in above.ops)

    def _refused_text(self, node):
        """A string that is exactly a name the attribute rules refuse and that libraries read objects by
        (a dunder, a frame's attribute): `{"__instancecheck__": f}` given to `type`; but for the slots a
        class keeps (`__slots__ = ("_k", "__dict__")`)."""
        text = node.value
        if not ((_dunder(text) and text not in DUNDERS) or text in FRAME_ATTRIBUTES):
            return False
        above = self.above.get(id(node))
        above = self.above.get(id(above)) if isinstance(above, (ast.Tuple, ast.List)) else above
        return not (isinstance(above, (ast.Assign, ast.AnnAssign)) and text in ("__dict__", "__weakref__")
                    and any(isinstance(target, ast.Name) and target.id == "__slots__"
                            for target in getattr(above, "targets", [getattr(above, "target", None)])))

    def _refused(self, name, on=None, writes=False):
        """An attribute `name` (of the object `on`, where known; set there where `writes`) that leads into
        the interpreter: a dunder not listed (or one only read, set), a frame's or code's attribute, an
        interpreter module's name or a refused built-in's; or a private name other than a named tuple's that
        the student's code does not set on its own objects (a method's `self` or `cls`, a class the file
        defines), or that torch has unless read or set on those (`self._masked_softmax`: round 51's h01); nor
        may one be set on another object: a library object's private state, `redirect_stdout(None)._stream
        = "modules"`, led to `sys.modules` (round 50's a07)."""
        if writes and name in OWN_ONLY_WRITES and not (on is not None and self._own_object(on)):
            return True
        if _dunder(name):
            return name not in DUNDERS or (writes and name in READ_ONLY_NAMES)
        if _private(name):
            if name in NAMED_TUPLE_API:
                return self.modules.leads_inside(name)
            own = on is not None and self._own_object(on)
            return name not in self.own_private() or (writes and not own) or (
                self.modules.leads_inside(name) and not (own and name in self.bound[id(self._class_of(on))]))
        return name in FRAME_ATTRIBUTES or name in INTERPRETER or name in BUILTIN_ATTRIBUTES or self.modules.alias(name)

    def own_private(self):
        """The private names the student's code sets in a class body or on its own objects."""
        if self._own_private is None:
            self._own_private = {name for name, receiver, scope in self.private_sets
                                 if receiver is None or self._own_object(receiver, scope)}
        return self._own_private

    def _class_of(self, receiver):
        """The class an own object (`_own_object`) is of, or is: where its class body binds a name, the
        object's attribute is that one, whatever its bases hold."""
        scope = self.scope_of.get(id(receiver))
        while scope is not None and not isinstance(scope, ast.ClassDef):
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(
                    self.parent.get(id(scope)), ast.ClassDef) and [*scope.args.posonlyargs, *scope.args.args][:1] \
                    and [*scope.args.posonlyargs, *scope.args.args][0].arg == receiver.id:
                return self.parent[id(scope)]
            scope = self.parent.get(id(scope))
        if self._classes is None:
            self._classes = {node.name: node for node in self.nodes if isinstance(node, ast.ClassDef)}
        return self._classes.get(receiver.id, self.tree)

    def _only_iterated(self, name):
        """Whether every read of `name` is only iterated where it stands (`_iterated`), asked once per name."""
        if name not in self._iterated_only:
            self._iterated_only[name] = all(self._iterated(node) for node in self._loads().get(name, ()))
        return self._iterated_only[name]

    def _loads(self):
        """{name: the Name nodes that read it}, made once (every lookup of one would walk the file: a file of
        thousands of lines then took minutes)."""
        if self._names_read is None:
            self._names_read = {}
            for node in self.nodes:
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    self._names_read.setdefault(node.id, []).append(node)
        return self._names_read

    def _own_object(self, receiver, scope=None):
        """Whether `receiver` is the student's own object: a method's first parameter (`self`, `cls`), never
        bound otherwise in it, or a class the file defines and binds no other way."""
        if not isinstance(receiver, ast.Name):
            return False
        scope = scope if scope is not None else self.scope_of.get(id(receiver))
        while isinstance(scope, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            scope = self.parent.get(id(scope))
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(self.parent.get(id(scope)),
                                                                                       ast.ClassDef):
            first = [*scope.args.posonlyargs, *scope.args.args][:1]
            if first and first[0].arg == receiver.id:
                return self.stores.get((id(scope), receiver.id)) == [None] and receiver.id not in self.declared
        if self._definitions is None:
            self._definitions = _bindings(self.nodes, self.scope_of)
        return self._definitions.get(receiver.id) == {"definition"}


_TYPE_MAKERS = frozenset({"TypeVar", "NewType", "ParamSpec", "TypeVarTuple"})  # `T = TypeVar("T")`


def _bindings(nodes, scope_of):
    """{name: how the file binds it}: "import", "definition" (a class or a function), "type" (assigned a
    type expression: names, attributes, subscripts and `|` of them, None, a TypeVar) or "other"; and
    {"root.attr": ...} for an attribute the file assigns (`torch.CODE = ...`: "torch.CODE"), or a class body
    binds ("H.CODE"). What an annotation names is evaluated with it."""
    found = {}
    for node in nodes:
        if isinstance(node, ast.alias):
            found.setdefault((node.asname or node.name).partition(".")[0], set()).add("import")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.setdefault(node.name, set()).add("definition")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.setdefault(node.id, set())
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.setdefault(f"{_root(node)}.{node.attr}", set()).add("other")  # `torch.CODE = "..."`
        elif isinstance(node, ast.arg):
            found.setdefault(node.arg, set()).add("other")
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and getattr(node, "value", None) is not None:
            kind = "type" if _type_expression(node.value) else "other"
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                if isinstance(target, ast.Name):
                    found[target.id].add(kind)
                    if isinstance(scope_of.get(id(target)), ast.ClassDef):  # a class attribute
                        found.setdefault(f"{scope_of[id(target)].name}.{target.id}", set()).add(kind)
    for node in nodes:  # bound otherwise too: a loop's, a with's, a walrus's, unpacked, a global
        targets = [getattr(node, "target", None)] if isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr,
                                                                       ast.AugAssign, ast.comprehension)) else \
            [item.optional_vars for item in node.items] if isinstance(node, (ast.With, ast.AsyncWith)) else \
            [target for target in node.targets if not isinstance(target, ast.Name)] if isinstance(node, ast.Assign) \
            else []
        for part in (part for target in targets if target is not None for part in ast.walk(target)):
            if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Store):
                found[part.id].add("other")
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                found.setdefault(name, set()).add("other")
    for kinds in found.values():  # bound by `del`, an except, a match: whatever it holds
        if not kinds:
            kinds.add("other")
    return found


def _root(node):
    """The name an attribute chain starts from (`torch` of `torch.nn.CODE`), or "" (a call's, a subscript's)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _type_expression(node):
    """Whether an assigned value is a type expression (`Optional[Tensor]`, `int | None`, `TypeVar("T")`)."""
    if isinstance(node, ast.Call):
        return _called_name(node.func) in _TYPE_MAKERS and all(
            isinstance(arg, ast.Constant) or _type_expression(arg) for arg in node.args)
    return all(isinstance(part, (ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Load, ast.BitOr,
                                 ast.Index)) or (isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr))
               or (isinstance(part, ast.Constant) and part.value in (None, Ellipsis)) for part in ast.walk(node))


def _held_text(annotation, bindings):
    """The names in an annotation that may hold text a library would evaluate as code (round 42's a01:
    `def f(x: CODE)`, CODE a string, given to `functools.singledispatch().register`): one the file binds
    other than by an import, a definition or a type expression, or an attribute it assigns (`H.CODE`)."""
    held = []
    for part in ast.walk(annotation):
        if isinstance(part, ast.Name) and "other" in bindings.get(part.id, ()):
            held.append(part.id)
        elif isinstance(part, ast.Attribute) and "other" in bindings.get(f"{_root(part)}.{part.attr}", ()):
            held.append(f"{_root(part)}.{part.attr}")
    return held


def _enum_names(call):
    """Whether an enum class made by a call (its functional API) has member names written in the code:
    plain public identifiers, in a text, a list or tuple of texts or of (text, value) pairs, or a dict's keys."""
    names = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "names"), None)
    if names is None:
        return not call.keywords or all(k.arg not in (None, "names") for k in call.keywords)
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return False
    if isinstance(names, ast.Constant) and isinstance(names.value, str):
        texts = names.value.replace(",", " ").split()
    elif isinstance(names, ast.Dict):
        texts = names.keys
    elif isinstance(names, (ast.List, ast.Tuple)):
        texts = [item.elts[0] if isinstance(item, ast.Tuple) and item.elts else item for item in names.elts]
    else:
        return False
    texts = [text.value if isinstance(text, ast.Constant) else text for text in texts]
    return all(isinstance(text, str) and text.isidentifier() and not text.startswith("_") for text in texts)


def _assigned(statement, store):
    """Whether `statement` assigns a value to the Name `store` itself (not unpacked into it)."""
    if isinstance(statement, ast.Assign):
        return store in statement.targets
    return isinstance(statement, ast.AnnAssign) and statement.target is store and statement.value is not None


def _names_bound_by(statement):
    """The names one statement of a module's body binds wherever it runs through: an assignment's, a
    definition's, an import's (`*` is none)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).partition(".")[0] for alias in statement.names if alias.name != "*"]
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(
        statement, ast.AnnAssign) and statement.value is not None else []
    return [part.id for target in targets for part in ast.walk(target)
            if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Store)]


def _format_attributes(text):
    """The attributes the replacement fields of `text` name, were it formatted (`{0.gi_frame.f_back}`:
    gi_frame and f_back), fields nested in a format spec included, to MAX_FORMAT_NESTING levels (str.format
    reads one and raises "Max string recursion exceeded" past it; each level read again was quadratic in a
    spec of 200 000 levels, round 64's a02), up to a malformed one (where formatting stops)."""
    found, pending = [], [(text, 0)]
    while pending:
        text, depth = pending.pop()
        try:
            for _, field, spec, _ in string.Formatter().parse(text):
                if field:
                    found += [key for attribute, key in formatter_field_name_split(field)[1] if attribute]
                if spec and depth < MAX_FORMAT_NESTING:
                    pending.append((spec, depth + 1))
        except ValueError:
            continue
    return found


def _is_main_block(statement):
    """`if __name__ == "__main__":`, the block a module runs only as a script."""
    test = getattr(statement, "test", None)
    return (isinstance(statement, ast.If) and isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == "__main__")


def _annotations(node):
    """The annotation one node holds (`x: "torch.Tensor"`, `-> Tensor`), if any: libraries evaluate
    them (text as code)."""
    if isinstance(node, ast.arg):
        annotation = node.annotation
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        annotation = node.returns
    elif isinstance(node, ast.AnnAssign):
        annotation = node.annotation
    else:
        return []
    return [annotation] if annotation is not None else []


def _texts(annotation):
    """The string constants in an annotation, which a library may evaluate as code: the annotation
    itself, or any inside it, but for a `Literal[...]`'s values, which are kept as they are."""
    found, pending = [], [annotation]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Subscript) and _called_name(node.value) == "Literal":
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _written_name(node, modules):
    """The attribute name a `getattr` argument can only be, as far as its text says: a literal, or an
    f-string whose fixed start or end keeps it away from the refused names (`f"{which}_proj"`); None
    where the name is made at run time."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # `name + "_proj"`: as f"{name}_proj"
        node = ast.JoinedStr(values=[node.left, node.right])
    if isinstance(node, ast.JoinedStr) and node.values:
        first, last = node.values[0], node.values[-1]
        start = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
        end = last.value if isinstance(last, ast.Constant) and isinstance(last.value, str) else ""
        if start[:1].isalpha() and not modules.some_refused(start=start):
            return f"{start}…"  # a public name, and none of the refused ones
        if end and not end.endswith("_") and not modules.some_refused(end=end):
            return f"…{end}"  # no dunder, and none of the refused names
    return None


def _called_name(func):
    """The name a call's function is written with (`load` of `np.load`), or None."""
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _dunder(name):
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def _private(name):
    return name.startswith("_") and not _dunder(name)


def _allowed_builtin(name):
    value = getattr(builtins, name, None)
    return name in BUILTINS or (isinstance(value, type) and issubclass(value, BaseException))


def _module(name, alias=None):
    """What an import of `name` (as `alias`) reaches, or None."""
    parts = name.split(".")
    if len(parts) == 1 and name in MODULE_VALUES:  # its uses are read at each `sys.`, `os.`
        return f"import {name} as {alias}" if alias not in (None, name) else None
    if parts[0] not in MODULES or any(part.startswith("_") or part in INTERPRETER for part in parts[1:]) \
            or any(name == refused or name.startswith(refused + ".") for refused in REFUSED_MODULES):
        return f"import {name}"
    return None
