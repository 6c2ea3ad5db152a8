"""A file that reaches into the process that runs it is held for a person's review (grader.sandbox.reach):
what such code can do to the grader's own objects there, no check in that process can rule out, and
attention code never needs it. Every honest file the kit keeps must read as not reaching (a false
alarm costs a student an exercise until they take the line out); every way the kit's testers found
into the child's interpreter must read as reaching."""

import json
import textwrap
from pathlib import Path

import pytest

from grader.sandbox import reach
from click.testing import CliRunner

from conftest import HONEST, SOLUTIONS, SUBMISSIONS, failures
from grader.cli.main import main
from grader.grading import submission

TESTS = Path(__file__).resolve().parent.parent
# every file of the kit's corpora written as a student's (right or wrong), by the team and by testers who
# had not read this module: none reaches
STUDENT_FILES = sorted({*SOLUTIONS.glob("*.py"), *SUBMISSIONS.glob("exercise*/*.py"), *HONEST.glob("exercise*/*.py"),
                        *(TESTS / "unseen").glob("**/honest_*.py"), *(TESTS / "unseen").glob("**/wrong_*.py")})


def names(source):
    return [found.names for found in reach.reaches(textwrap.dedent(source))]


def test_a_doctest_run_at_import_is_held():
    """Round 28's honest file that imports doctest at its top: doctest runs the text of docstrings as
    code, so it is held (in the main block it would not be read)."""
    source = (TESTS / "unseen" / "round28" / "exercise1" / "held_doctest.py").read_text(encoding="utf-8")
    assert names(source) == ["import doctest"]


# The corpora's files that use numpy, which is held since round 45 (numpy reads memory at any address an
# object's `__array_interface__` names, and an attribute of a name made at run time has too many ways in)
NUMPY_USERS = {"tests/unseen/round11/exercise2/wrong_numpy_roundtrip.py", "tests/unseen/round11/exercise8/wrong_numpy_prod.py",
               "tests/unseen/round28/exercise4/honest_numpy_helper.py", "tests/unseen/round8/exercise2/wrong_numpy_roundtrip.py",
               "tests/unseen/round9/exercise2/wrong_numpy_port.py"}


def test_no_student_file_of_the_corpora_reaches():
    assert len(STUDENT_FILES) > 1000
    reaching = {str(path.relative_to(TESTS.parent)): reach.reaches(path.read_text(encoding="utf-8"))
                for path in STUDENT_FILES}
    assert {path: found for path, found in reaching.items() if found and path not in NUMPY_USERS} == {}
    assert all({found.names for found in reaching[path]} <= {"import numpy", ".numpy"} and reaching[path]
               for path in NUMPY_USERS)


def test_no_student_notebook_of_the_corpora_reaches():
    notebooks = sorted((TESTS / "unseen").glob("**/honest_*.ipynb"))
    assert notebooks
    assert {path.name: found for path in notebooks if (found := reach.reaches(submission.notebook_code(path)))} == {}


@pytest.mark.parametrize("source, expected", [
    # the ways in of the kit's testers (tests/attacks: rounds 9, 13, 21, 22, 23)
    ("import gc\nobjects = gc.get_objects()", ["import gc"]),
    ("try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    g = e.__traceback__.tb_frame.f_back.f_globals",
     [".__traceback__", ".f_back", ".f_globals", ".tb_frame"]),
    ("import torch\nwatched = torch._C._len_torch_dispatch_stack() > 0", ["._C", "._len_torch_dispatch_stack"]),
    ("import sys\nwatched = sys.getprofile() is not None", ["sys.getprofile"]),
    ("import sys\nframe = sys._getframe(1)", ["sys._getframe"]),
    ("import ast, torch.nn.functional as F\nsource = open(F.__file__).read()", ["import ast", "open()"]),
    ("code = compile('x = 1', 'f', 'exec')\nexec(code)", ["compile()", "exec()"]),
    # what leads from an object to other objects' insides, whatever the object
    ("classes = object.__subclasses__()", [".__subclasses__"]),
    ("def f(): pass\nmodule = f.__globals__", [".__globals__"]),
    ("import torch\nimport_sys = torch.sys.modules", [".sys"]),
    ("import numpy as np\nc = np.ctypeslib.ctypes", [".ctypes", ".ctypeslib", "import numpy"]),
    ("import numpy as np\nview = np.lib.stride_tricks.as_strided", [".stride_tricks", "import numpy"]),
    ("import operator\nget = operator.attrgetter('f_back')", [".attrgetter", "'f_back'"]),
    ("import torch\nhidden = getattr(torch, '_C')", ["getattr(..., '_C')"]),
    ("import torch\nname = 's' + 'ys'\nm = getattr(torch, name)", ["getattr with a name not written in the code"]),
    ("g = vars()\nh = globals()\ni = id(g)", ["globals()", "id()", "vars()"]),
    ("sys = __import__('sys')", ["__import__", "sys"]),
    ("__builtins__ = {}", ["__builtins__"]),
    # attributes read without an attribute's syntax, and code run from data
    ("match error:\n    case Exception(__traceback__=tb):\n        pass", [".__traceback__"]),
    ("import torch\nx = torch.load('scores.pt', weights_only=False)", ["weights_only="]),
    ("import typing\ndef f(x: 'g()'): pass\nhints = typing.get_type_hints(f)", [".get_type_hints"]),
    ("import string\nfield = string.Formatter().get_field('0.x', (1,), {})", ["import string"]),
    # round 28 (a tester who had read this module, not the kit's tests): each held nothing before
    ("from sys import modules\ngc = modules['gc']", ["from sys import modules"]),
    ("import sys as interp\nwatched = interp.getprofile()", ["import sys as interp"]),
    ("def describe(eval=None):\n    return eval\nx = eval('1')", ["eval()"]),  # a parameter is not the module's
    ("eval = None\ndel eval\nx = eval('1')", ["eval()"]),  # a module's binding may be gone
    ("x = [eval('1') for _ in [0] if [(eval := None) for _ in []]]", ["eval()"]),  # := binds the module's
    ("class C:\n    def f(self):\n        return self._C\n    def g(self):\n        self._C = None",
     ["._C", "._C"]),  # a private name torch has, even where the student's class defines it
    ("class C:\n    def f(self):\n        return self._cache_", ["._cache_"]),  # one it never defines
    ("import typing\nclass K:\n    def f(self, x: 'sys._getframe(1).f_back'): pass",
     [".f_back (in a string annotation)", "sys._getframe (in a string annotation)"]),
    ("import torch.utils.benchmark as b", ["import torch.utils.benchmark"]),
    ("import torch\nt = torch.utils.benchmark.Timer(stmt='1')", [".Timer"]),
    # round 29 (another tester who had read this module): library routes to code held in data or text,
    # and a class pattern that matches any object
    ("import logging.config\nlogging.config.dictConfig({'v': 'ext://gc.get_objects'})",
     [".dictConfig", "import logging.config"]),
    ("import numpy as np\na = np.lib.format.read_array(f, allow_pickle=True)",
     ["allow_pickle=", ".read_array", "import numpy", ".format of text not written in the code"]),
    ("from numpy.lib import format", ["import numpy.lib"]),
    ("import torch\nw = torch.utils.model_zoo.load_url('file:///x')", [".load_url", ".model_zoo"]),
    ("import torch\nschema = torch.library.infer_schema(f)", [".library"]),
    ("def f(x: f\"{'g'}()\"): pass", ["an annotation made at run time"]),
    ("def f(x: 'a' + 'b'): pass", ["an annotation made at run time"]),
    ("def f(x: '-' * 3): pass", ["an annotation made at run time"]),
    ("def f(x: '" + "-" * 20000 + "1'): pass", ["a string annotation too long to read"]),
    ("class Meta(type):\n    def __instancecheck__(cls, other):\n        return True", ["def __instancecheck__"]),
    ("class Fields:\n    __match_args__ = ('__globals__',)", ["__match_args__", "'__globals__'"]),
    ("import doctest", ["import doctest"]),  # runs the text of docstrings
    ("import torch\nv = getattr(torch, f'f_{1}')", ["getattr with a name not written in the code"]),
    ("from torch.utils import _python_dispatch", ["from torch.utils import _python_dispatch"]),
    ("import torch.utils.cpp_extension", ["import torch.utils.cpp_extension"]),
    ("from . import helper", ["from . import ..."]),
    ("import os, signal", ["import signal"]),
    ("if __name__ == '__main__':\n    pass\nelse:\n    import gc", ["import gc"]),  # the else runs on import
    ("__name__ = '__main__'\nif __name__ == '__main__':\n    import gc", ["__name__", "import gc"]),  # then the block runs
    ("x = " + "a." * 5000 + "b", ["a file too deeply nested to read through"]),
    # round 30 (a tester who had read this module): the child's socket answered through `os`, annotations'
    # text evaluated, an attribute copied by a name held in data, and a main block run by binding __name__
    ("import os\nos.write(3, b'{}')\nos.fstat(3)", ["os.write", "os.fstat"]),
    ("import os\nos.lseek(1, 0, 0)", ["os.lseek"]),
    ("from os import read", ["from os import read"]),
    ("import os as o", ["import os as o"]),
    ("import os\nf(os)", ["os"]),
    ("import torch\ntorch.os.write(1, b'')", [".os"]),
    ("import pathlib\npathlib.os.read(3, 9)", [".os"]),
    ("class Note:\n    __annotations__ = {'fix': '1'}", ["__annotations__"]),
    ("import typing_extensions as t\nt.get_annotations(C, eval_str=True)", [".get_annotations", "eval_str="]),
    ("import functools\nfunctools.update_wrapper(o, f, assigned=('__globals__',), updated=())",
     [".update_wrapper", "assigned=", "updated=", "'__globals__'"]),
    ("import functools\nfunctools.wraps(f, ('__globals__',))(o)",
     ["wraps() with arguments past its first 1", "'__globals__'"]),
    ("import numpy as np\nnp.load(f, None, True)", ["load() with arguments past its first 2", "import numpy"]),
    ("import torch\ntorch.load(f, **options)", ["load() with arguments past its first 2"]),
    ("match '__main__':\n    case __name__:\n        pass\nif __name__ == '__main__':\n    import gc",
     ["import gc"]),
    ("def f():\n    global __name__\nif __name__ == '__main__':\n    import gc", ["import gc"]),
    ("import __name__\nif __name__ == '__main__':\n    import gc", ["import __name__", "import gc"]),
    # round 31 (another tester who had read this module): text evaluated as code inside an annotation and
    # through a forward reference, an attribute path through torch.fx, a variable that makes torch.load
    # unpickle, refused names handed to type() as a class's dict
    ("def f(x: list[\"__import__('gc')\"]): pass", ["__import__ (in a string annotation)"]),
    ("def f(x: 'Literal[\"open\"]'): pass\ndef g(x: Literal['open', 'input']): pass", []),
    ("import typing_extensions as t\nv = t.evaluate_forward_ref(r)", [".evaluate_forward_ref"]),
    ("import torch.fx", ["import torch.fx"]),
    ("import torch\ng = torch.fx.Graph()", [".fx"]),
    ("import torch\nf = torch.jit.script(g)", [".jit"]),
    ("import os\nos.environ['TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD'] = '1'", ["os.environ changed or handed on"]),
    ("import os\nos.environ.update(A='1')", ["os.environ changed or handed on"]),
    ("import os\nenv = os.environ", ["os.environ changed or handed on"]),
    ("A = type('A', (type,), {'__instancecheck__': f})",
     ["type() with arguments past its first 1", "'__instancecheck__'", "type not called where it is named"]),
    ("class C:\n    __slots__ = ('_k', '__dict__', '__weakref__')", []),
    ("x = {'__dict__': 1}", ["'__dict__'"]),
    # round 41 (a tester of containment, who had read this module): the interpreter under the names an
    # allowed module gives it (read from the modules, not listed), and a private one the file defines too
    ("import enum\nenum.bltns.exec(text)", [".bltns", ".exec"]),
    ("from enum import bltns", ["from enum import bltns"]),
    ("import logging\nf = logging.io.FileIO(3, 'w')", [".io"]),
    ("import json\nf = json.codecs.open(path)", [".codecs"]),
    ("class H:\n    _sys = None\nimport collections\nm = collections._sys.modules", ["._sys"]),
    ("class H:\n    _os = None\nimport argparse\nargparse._os.write(3, b'')", ["._os"]),
    ("class H:\n    _thread = None\nimport dataclasses\ndataclasses._thread", ["._thread"]),
    ("import logging.handlers\nlogging.handlers.socket.socket()", [".socket"]),
    ("import torch\nm = torch.onnx", [".onnx"]),  # a submodule torch imports when first asked for
    ("import enum\nb = getattr(enum, f'bl{1}')", ["getattr with a name not written in the code"]),
    # round 42 (a tester of that reading, who had read this module): text evaluated as an annotation that a
    # variable holds (functools.singledispatch's `register` evaluates it), names a str subclass makes up
    # for the code `dataclasses.make_dataclass` writes, an attribute set by a name made at run time
    ("import functools\nCODE = 'exec(1)'\n@functools.singledispatch\ndef f(x): pass\ndef g(x: CODE): pass\n"
     "f.register(g)", ["an annotation that may hold text (CODE)"]),
    ("def f(CODE):\n    def g(x: CODE): pass", ["an annotation that may hold text (CODE)"]),
    ("class H:\n    CODE = 'x'\ndef f(x: H.CODE): pass", ["an annotation that may hold text (H.CODE)"]),
    ("class Name(str):\n    def isidentifier(self):\n        return True", ["class Name: text with methods of its own"]),
    ("class M(type): pass\nM.__setattr__(C, '__match' + '_args__', ('x',))",
     ["__setattr__ of a name not written in the code"]),
    # round 44 (a tester of the whole kit, who had read this module): raw memory through numpy, which reads an
    # array at the address an object's `__array_interface__` gives (a property of the student's class), then
    # the grader's objects through it; and the ways a library sets such an attribute by a name from data
    ("class Box:\n    @property\n    def __array_interface__(self):\n        return {}", ["def __array_interface__"]),
    ("class Mode:\n    def __torch_function__(self, *args):\n        pass", ["def __torch_function__"]),
    ("import argparse\nbox = argparse.Namespace(__array_interface__={})", ["__array_interface__="]),
    ("import argparse\nbox = argparse.Namespace(**fields)", ["Namespace(**...): attributes of names not written in the code"]),
    ("import argparse\nparser.add_argument('--x', dest=name)", ["dest= of a name not written in the code"]),
    ("import dataclasses\nBox = dataclasses.make_dataclass('Box', fields)", [".make_dataclass"]),
    # round 45: the same through an enum's functional API or a metaclass called on a dict of computed names;
    # so numpy itself, which reads memory where such an attribute says, is held
    ("import numpy as np", ["import numpy"]),
    ("import torch\nprint(torch.ones(2).numpy())", [".numpy"]),
    # round 47 (a tester of 7521de8): attributes named in text that `str.format` reads, and argparse
    # making an attribute's name of an option string (prefix characters of its own), set on a metaclass
    # that a class pattern's `__match_args__` then reads by
    ("def f(g):\n    return ('{0.gi_frame' + '.f_back}').format(g)", [".format of text not written in the code"]),
    ("def f(g):\n    return '{0:{1.gi_frame}}'.format(g, g)", ["{….gi_frame} in a format string"]),
    ("def f(g):\n    return getattr('{}', 'format')(g)", ["getattr(..., 'format')"]),
    ("import logging\nlogging.basicConfig(format=text, style='{')",
     ["style= of logging's {} formatting, with text not written in the code"]),
    ("import logging\nf = logging.Formatter(text, None, '{')",
     ["logging.Formatter of {} formatting, with text not written in the code"]),
    ("import logging\nclass F(logging.Formatter): pass", ["class F: a logging formatter of its own"]),
    ("import argparse\np = argparse.ArgumentParser(prefix_chars='+')", ["prefix_chars="]),
    ("import argparse\np.add_argument('--__instancecheck--')", ["add_argument() of an attribute '__instancecheck__'"]),
    ("import argparse\np.add_argument(option)", ["add_argument() of an option not written in the code"]),
    ("import argparse\np.add_argument('--x', dest='_probe')", ["dest='_probe'"]),
    ("import argparse\np.set_defaults(_probe=1)", ["_probe="]),
    ("import argparse\nargparse.Namespace.__init__(Meta, **names)", [".__init__ of a class given names made at run time"]),
    ("import argparse\nNS = argparse.Namespace\nf = NS.__init__", [".__init__ of a class given names made at run time"]),
    # round 48 (a tester of round 47's change): the same under other names, and a dataclass's fields named
    # as a frame's attributes, `isinstance` answered by `abc`'s register
    ("import argparse\nparse = p.parse_args\nparse(['--x'], Meta)", [".parse_args not called where it is named"]),
    ("import argparse\np.parse_args(['--x'], namespace=Meta)", ["parse_args() given an object to set its attributes on"]),
    ("import argparse\np.parse_known_args(['--x'], Meta)", ["parse_known_args() given an object to set its attributes on"]),
    ("import abc, dataclasses\n@dataclasses.dataclass\nclass R(abc.ABC):\n    gi_frame: object\n"
     "match g:\n    case R(frame): pass", ["case R(...): attributes its __match_args__ names"]),
    # round 49: names read from a list that code changed after it was written; the functions that run code
    # held in data, under other names
    ("def f(o, name):\n    box = ['weight']\n    box[0] = name\n    for a in box:\n        return getattr(o, a)",
     ["getattr with a name not written in the code"]),
    ("import torch\nload = torch.load\nx = load(f, None, m)", [".load not called where it is named"]),
    ("from torch import load as read\nx = read(f, None, m)", ["from torch import load"]),
    # round 50: what `functools.wraps` made, kept and changed; `__setattr__` kept; a library object's private state
    ("import functools\np = functools.wraps(obj)\np.keywords['assigned'] = (name,)", ["wraps() not applied where it is made"]),
    ("_set = Meta.__setattr__", [".__setattr__ not called where it is named"]),
    ("import contextlib\nclass C:\n    def __init__(self):\n        self._stream = 0\n"
     "r = contextlib.redirect_stdout(None)\nr._stream = 'modules'", ["._stream"]),
    ("m = box.getattr", [".getattr"]),
    # round 51: a name a library sets attributes by, set at run time
    ("def f(): pass\nf.__name__ = name", [".__name__"]),
    ("class C:\n    __qualname__ = name", ["__qualname__"]),
    # round 52: a dataclass's field renamed (a subclass's generated code holds its name), enum's functional API
    ("import dataclasses\nfor f in dataclasses.fields(Base):\n    f.name = code", [".name"]),
    ("import enum\nE = enum.Enum('E', [(name, f)])", ["Enum() of member names not written in the code"]),
    ("T = type\nM = T('M', (object,), names)", ["type not called where it is named"]),
    ("g = type[int]", ["type not called where it is named"]),  # a generic alias calls its origin
    ("import torch\na = torch.cuda.memory.CUDAPluggableAllocator(path, 'alloc', 'free')", [".CUDAPluggableAllocator"]),
    ("import torch\nmatch x:\n    case torch.Size(n): pass", ["case Size(...): attributes its __match_args__ names"]),
    ("def f(self, y):\n    for p in ('q_proj',):\n        p = y\n        return getattr(self, p)",
     ["getattr with a name not written in the code"]),
    ("for p in ('q_proj', 'f_back'):\n    getattr(self, p)", ["'f_back'", "getattr(..., 'f_back')"]),
    ("def f():\n    return input()\nf()\ninput = 3", ["input()"]),  # read before the module binds it
    ("input = 3\ndel input\nprint(input)", ["input()"]),
])
def test_ways_into_the_interpreter_are_found(source, expected):
    assert sorted(names(source)) == sorted(expected)


def test_what_attention_code_writes_is_not_reaching():
    source = """
        from __future__ import annotations
        import argparse, enum, functools, json, logging, math, os, random, sys, typing, warnings
        from dataclasses import dataclass
        from functools import singledispatch
        from typing import Literal, Optional
        from pathlib import Path
        from dataclasses import dataclass
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        __all__ = ["Cache"]
        DEBUG = os.environ.get("DEBUG") or os.getenv("LUMEN_DEBUG") or "LUMEN_TRACE" in os.environ
        LEVEL = os.environ["LEVEL"] if "LEVEL" in os.environ else "info"
        THREADS = os.cpu_count()
        CONFIG = json.loads((Path(__file__).parent / "config.json").read_text()) if DEBUG else {}
        torch.backends.cudnn.benchmark = True


        @dataclass(frozen=True)
        class Shape:
            d: int
            mask: "Optional[torch.Tensor]" = None

            def __post_init__(self):
                object.__setattr__(self, "d", int(self.d))


        @singledispatch
        def size_of(x: "list[torch.Tensor]") -> int:
            return len(x)


        def mode_of(x: Literal["causal", "open"] = "causal") -> "Optional[int]":
            return None


        Mask = Optional[torch.Tensor]  # a type alias, and a str enum: no text of code
        T = typing.TypeVar("T")


        class Mode(str, enum.Enum):
            CAUSAL = "causal"


        Side = enum.Enum("Side", "LEFT RIGHT")  # enum's functional API, its names written in the code


        class Window:  # the special methods everyday classes define
            def __init__(self, n):
                self.n = n

            def __len__(self):
                return self.n

            def __getitem__(self, i):
                return i

            def __eq__(self, other):
                return isinstance(other, Window) and other.n == self.n

            def __hash__(self):
                return hash(self.n)

            def __repr__(self):
                return f"Window({self.n})"


        def masked(x: Mask, mode: Mode = Mode.CAUSAL, like: T = None) -> Mask:
            return x


        def helper(input, id, dir=1):  # built-ins' names as a function's own
            return input[id] * dir

        input = torch.randn(2, 3)  # a notebook's scratch cell: a built-in's name as the module's own
        print(input.sum(), "shape {} of {}".format(input.shape, input.dtype), "{0.shape!r:>4}".format(input))
        logging.basicConfig(format="{asctime} {message}", style="{")
        HEADS = {"q_proj": 4, "k_proj": 2, "v_proj": 2}


        class Masked(nn.Module):  # a private buffer's name given to torch (round 48's h05)
            def __init__(self):
                super().__init__()
                self.register_buffer("_tril", torch.ones(4, 4).tril(), persistent=False)

            def forward(self, x):
                return x.masked_fill(self._tril[: x.size(-1), : x.size(-1)] == 0, 0.0)


        class Loader:  # a method of the student's named like a library's (round 49's h01)
            def load(self, k, v, start):
                return k, v, start

            def update(self, k, v):
                return self.load(k, v, 0), isinstance(k, (int, type))

            @functools.wraps(print)  # applied where it is made
            def shown(self, cache):
                return cache._k  # a private name its own objects hold, read on another of them


        class State(typing.NamedTuple):  # a named tuple's own API (round 47's h02)
            length: int

            def grown(self, n):
                return self._replace(length=self.length + n), self._asdict(), State._fields

        class Cache(nn.Module):
            def __init__(self, d):
                super().__init__()
                self._k = None  # the student's own private attribute
                self._version, self._stats, self._verbose = 0, {}, False  # names torch's own modules have too
                self.register_buffer("mask", torch.tril(torch.ones(4, 4, dtype=torch.bool)))

            def forward(self, x, which="q"):
                if not hasattr(self, "_k") or self._k is None:
                    self._k, self._dtype, self._size = x, x.dtype, x.shape
                proj = getattr(self, f"{which}_proj", None)  # a name with a fixed, public end
                proj = getattr(self, which + "_proj", proj)  # the same, added (round 45's h01)
                layer = getattr(self, f"layer{len(x)}", None)
                heads = [getattr(self, name)(x) for name, n in HEADS.items()]  # names written in the code (h01)
                for name in ("q_proj", "k_proj"):
                    proj = getattr(self, name)
                parser = argparse.ArgumentParser()
                parser.add_argument("--block-size", type=int, default=64)
                parser.add_argument("-v", "--verbose", action="store_true")
                match x.shape:
                    case tuple((n, m)) if isinstance(n, int):
                        pass
                logging.getLogger(__name__).debug("cache %s", self._k.shape)
                big = sys.maxsize if x.dtype == torch.int64 else torch.finfo(x.dtype).min
                print(type(self).__name__, x.shape, file=sys.stderr)
                return F.softmax(x.masked_fill(~self.mask, big), dim=-1).__mul__(math.sqrt(x.size(-1)))

            def checked(self, x):  # names that also name what some module holds from outside the allowed ones
                noise = torch.randn(3, generator=torch.Generator().manual_seed(0)) + torch.fft.rfft(torch.ones(4)).real[:3]
                weight = nn.Parameter(torch.as_tensor(noise)).split(1)
                return typing.cast(list, weight), random.random(), os.path.join("a", "b"), x.to(torch.float64)

        if __name__ == "__main__":
            import time, os
            start = time.perf_counter()
            weights = torch.load(os.path.join("runs", "w.pt"))
            print(os.getcwd(), sys.argv)
    """
    assert names(source) == []


def test_a_file_that_does_not_parse_is_left_to_its_import():
    assert reach.reaches("def broken(:\n") == ()


def test_a_reaching_file_is_held_for_review_and_says_where(grade):
    source = (SOLUTIONS / "exercise3_scaling.py").read_text(encoding="utf-8") + "\nimport gc\n_seen = len(gc.get_objects())\n"
    line = source.splitlines().index("import gc") + 1
    result = grade(3, source=source, hold_reaching=True)  # the product's default (Settings)
    assert result.score == 0 and result.max_score > 0
    held = failures(result)
    assert held and all(test.message.startswith("held for your instructor's review: your code reaches into the "
                                                 f"process that runs it (exercise3_scaling.py, line {line}: import gc)")
                        for test in held)
    assert all(test.details["held_for_review"] == [f"exercise3_scaling.py, line {line}: import gc"] for test in held)


def test_a_course_can_score_reaching_files(tmp_path):
    """By default `lumen-grade` holds such a file; --score-reaching (a course whose own exercises need
    such code) scores it as any other."""
    (tmp_path / "exercise3_scaling.py").write_text((SOLUTIONS / "exercise3_scaling.py").read_text(encoding="utf-8")
                                                   + "\nimport gc\n", encoding="utf-8")
    args = ["exercise3", "--submission", str(tmp_path), "--device", "cpu", "--no-perf", "--format", "json"]
    held, scored = (json.loads(CliRunner().invoke(main, args + extra, catch_exceptions=False).output)
                    for extra in ([], ["--score-reaching"]))
    assert held["score"] == 0 < held["max_score"]
    assert scored["score"] == scored["max_score"] == held["max_score"]


ATTACKS = TESTS / "attacks"


def _source(attempt):
    (path,) = (ATTACKS / attempt / "sub").iterdir()
    return submission.notebook_code(path) if path.suffix == ".ipynb" else path.read_text(encoding="utf-8")


@pytest.mark.parametrize("attempt, held", [
    ("round47/a06_format_frames", True), ("round47/a07_argparse_dest", True), ("round47/a08_match_frames_forge", True),
    ("round47/h01_getattr_loop", False), ("round47/h02_namedtuple_cache", False), ("round47/h05_notebook_input", False),
    ("round48/a01_probe_reset_via_match", True), ("round48/a02_argparse_alias_dunders", True),
    ("round48/a03_namespace_alias_init", True), ("round48/h02_ex7_setattr_loop_einsum", False),
    ("round48/h05_ex7_private_buffer", False),
    ("round49/a01_list_mutation_frames", True), ("round49/a02_pluggable_allocator_dlopen", True),
    ("round49/h01_kv_load_helper", False),
    ("round50/a01_wraps_keywords", True), ("round50/a02_wraps_func", True), ("round50/a04_partial_kwargs", True),
    ("round50/a05_setattr_alias_dunder", True), ("round50/a07_redirect_stream", True),
    ("round50/h01_kv_namedtuple_decorator", False), ("round50/h02_gqa_lru_getattr", False),
    ("round51/a02_lazy_property_dunder", True), ("round51/h01_masked_softmax_method", False),
    ("round52/a02_dataclass_field_name", True), ("round52/a03_enum_dunder", True), ("round52/h05_stylish_cache", False)])
def test_testers_ways_in_are_held_and_their_honest_files_are_not(attempt, held):
    """Round 47: the grader's frames read through `str.format`'s fields (a06), and attributes named by
    argparse's option strings set on a metaclass, then read by a class pattern (a07; a08 forged exercise
    1's product count with it, 32/32 at both levels); its false alarms: `getattr(self, name)` over a dict's
    names written in the code (h01), a named tuple's `_replace` (h02), a notebook cell's
    `input = torch.randn(...)` (h05). Round 48: the frames read by a dataclass's fields in a class pattern
    (a01), argparse and `Namespace.__init__` under other names (a02, a03: 39/39 for a cache copying its
    past); its false alarm: a private buffer's name given to `register_buffer` (h05). Round 49: a list changed
    after it was written (a01), a library of its own loaded by torch's pluggable allocator (a02); its false
    alarm: a cache's own `load` method (h01). Round 50: `functools.wraps(obj)` kept and its keywords changed
    (a01, a02, a04), `__setattr__` kept as a value (a05), a library object's private state set
    (`redirect_stdout(None)._stream`, a07). Round 51: a function's `__name__` set at run time, by which torch's
    `lazy_property` set a dunder (a02); its false alarm: a method `_masked_softmax` of the student's class,
    a name torch has too (h01). Round 52: a dataclass's field renamed to code that a subclass's generated
    `__init__` ran (a02), a dunder set by enum's functional API (a03)."""
    assert bool(reach.reaches(_source(attempt))) == held


def test_each_binding_of_a_variable_is_read_once_however_often_it_is_read(monkeypatch):
    """The hold reads each binding of a variable that names attributes once, not once per read: a file of a
    thousand loops over one dict, each reading the loop's variable, made it walk every loop at each read
    (quadratic: minutes for a 6000-line file, in the judge). Counted, not timed."""
    calls = {"_stored_text": 0, "_stored_items": 0}
    for method in calls:
        def counted(self, store, _read=getattr(reach._Scopes, method), _name=method):
            calls[_name] += 1
            return _read(self, store)
        monkeypatch.setattr(reach._Scopes, method, counted)
    loops = 300
    source = "heads = {'q_proj': 1, 'k_proj': 2}\n\ndef project(module):\n" + \
        "    for name in heads:\n        getattr(module, name)\n" * loops
    assert reach.reaches(source) == ()
    assert calls == {"_stored_text": loops, "_stored_items": 1}


def test_the_names_a_variable_is_bound_to_are_judged_once_however_often_it_is_read(monkeypatch):
    """Round 59's a03: one variable bound to N names, read by N getattr calls, had every name judged at every
    read (quadratic: minutes for a 500 KB file, in the judge, before any time limit); a variable bound to more
    names than MAX_HELD_NAMES is read as a name made at run time. Counted, not timed."""
    judged = []
    monkeypatch.setattr(reach._Scopes, "_refused", lambda self, name, on=None, writes=False: judged.append(name))
    names, reads = reach.MAX_HELD_NAMES, 300
    source = "def project(module):\n" + "".join(f"    name = 'w{i}'\n" for i in range(names)) + \
        "    getattr(module, name)\n" * reads
    assert reach.reaches(source) == () and sorted(judged) == sorted(f"w{i}" for i in range(names))
    judged.clear()
    more = source.replace("    getattr", f"    name = 'w{names}'\n    getattr", 1)
    assert {found.names for found in reach.reaches(more)} == {"getattr with a name not written in the code"}
    assert judged == []


def test_a_format_spec_nested_past_what_format_reads_is_read_once(monkeypatch):
    """Round 64's a02: a string of 200 000 nested format specs was parsed again at each level (quadratic:
    107 s in the judge); str.format reads one level, so the fields of two are read and no deeper. Counted."""
    parsed = []
    parse = reach.string.Formatter.parse
    monkeypatch.setattr(reach.string.Formatter, "parse", lambda self, text: parsed.append(text) or parse(self, text))
    depth = 1000
    assert reach.reaches(f'x = "{"{0:" * depth}{"}" * depth}"\n') == ()
    assert len(parsed) == 1 + reach.MAX_FORMAT_NESTING
    assert reach._format_attributes("{0:{1.gi_frame:{2.f_back}}}") == ["gi_frame", "f_back"]


def test_a_file_that_takes_too_long_to_read_through_is_held(monkeypatch):
    """A shape whose reading costs more than its size (round 59's a03 was one) is held once the judge has
    read it for MAX_READ_SECONDS, not read on past every time limit."""
    monkeypatch.setattr(reach, "MAX_READ_SECONDS", 0)
    assert [found.names for found in reach.reaches("x = 1\n")] == ["a file that takes more than 0 s to read through"]


@pytest.mark.parametrize("start, end", [("q_", ""), ("gi_", ""), ("f_b", ""), ("_", ""), ("", "_proj"), ("", "back"),
                                        ("", "code"), ("", "modules"), ("x", ""), ("", "_frame"), ("zzz", "")])
def test_the_refused_names_a_made_up_name_may_start_or_end_with_are_looked_up_exactly(start, end):
    """`some_refused` finds by sorted lists what a scan of every refused name finds (an f-string's fixed
    start or end that one of them has)."""
    modules = reach._Modules.now()
    refused = {*reach.FRAME_ATTRIBUTES, *reach.INTERPRETER, *modules.lazy, *modules.refused_names()}
    expected = any(name.startswith(start) if start else name.endswith(end) for name in refused)
    assert modules.some_refused(start=start, end=end) == expected
