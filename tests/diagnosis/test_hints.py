"""The hint ladder (grader.diagnosis.hints): every diagnosis the grader can make teaches before it tells.

Every catalogued misconception has a principle (level 1), a cause (3) and a remedy (4); every key
family of the structural analysers and every cause id a check can name has a principle. The ids
and keys are read from the code itself (its syntax tree), so that a new one without a principle
fails here. Level 1 gives nothing away: no line of the solutions' code, no code at all (calls,
attributes, keywords, indexing, code characters), and no name the remedy's code uses (for a
structural finding or a cause: the analyser's or the check's own message, its level 3).
"""

import ast
import re

import pytest

from conftest import ROOT, SOLUTIONS
from grader import catalog
from grader.diagnosis import analysers, hints, misconceptions, traits
from test_diagnoses import CORPUS, graded

GRADER = ROOT / "grader"
SECTION = re.compile(r" Reread '(.+)'\.$")

# Names in code that are also the chapter's words, which level 1 may use: its steps and rules, its
# matrices, and the quantities a diagnosis names a call's sizes by
CHAPTER_WORDS = {"softmax", "diagonal", "max", "sum", "mean", "range", "view", "ones", "size", "mask", "update",
                 "W_Q", "W_K", "W_V", "W_O", *analysers.QUANTITY_WORDS}

# Code in level 1: a call, an attribute, a keyword argument, indexing, torch, or a character only code uses
CODE = [r"[A-Za-z_]\w*\(", r"[\w)\]]\.[A-Za-z_]", r"\w=", r"==", r"\w\[", r"\btorch\b", r"\bnn\b", r"\bF\.",
        r"`", r"~", r" @ ", r"//", r"\+=", r"\binf\b", r"\bNone\b", r"\bself\b"]


def code_names(text):
    """The names `text` uses as code: called, read as an attribute, passed as a keyword, or quoted."""
    names = set(re.findall(r"([A-Za-z_]\w*)\(", text)) | set(re.findall(r"[\w)\]]\.([A-Za-z_]\w*)", text))
    names |= set(re.findall(r"([A-Za-z_]\w*)=(?!=)", text)) | set(re.findall(r"`([^`]+)`", text))
    return names - CHAPTER_WORDS


def _solution_code_lines():
    """The solutions' lines of code (no docstrings, no comments), stripped."""
    lines = set()
    for path in sorted(SOLUTIONS.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        prose = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                prose.update(range(node.lineno, node.end_lineno + 1))
        for number, line in enumerate(source.splitlines(), 1):
            code = line.split("  #")[0].strip()
            if number not in prose and len(code) >= 8 and not code.startswith("#"):
                lines.add(code)
    return lines


SOLUTION_LINES = _solution_code_lines()
# the solutions' own API: what they call or read with an underscore in its name (masked_fill, repeat_interleave)
SOLUTION_NAMES = {name for path in SOLUTIONS.glob("*.py") for name in code_names(path.read_text(encoding="utf-8"))
                  if "_" in name.strip("_") and not name.startswith("__")}


def gives_away(level_one, told):
    """What of the fix `level_one` shows: code, a solution's line, or a name the code of `told` (the
    remedy, or the words of level 3) uses, or that the solutions call."""
    found = [pattern for pattern in CODE if re.search(pattern, level_one)]
    found += [line for line in SOLUTION_LINES if line in level_one]
    for name in code_names(told) | SOLUTION_NAMES:
        if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", level_one):
            found.append(name)
    return found


def test_the_check_of_level_one_catches_a_fix():
    remedy = misconceptions.BY_ID["merge-heads-without-transpose"].message
    assert gives_away("Swap the axes back with transpose first.", remedy) == ["transpose"]
    assert gives_away("Make it contiguous.", remedy) == ["contiguous"]
    assert gives_away("Each head keeps its tokens.", remedy) == []
    assert set(gives_away("Fill them with masked_fill.", "")) == {"masked_fill"}  # the solutions' API
    assert gives_away("Write x.view(B, L, D) here.", "")  # code
    assert "return x.transpose(1, 2)" in gives_away("It is return x.transpose(1, 2) in the end.", "")  # a solution's line
    assert gives_away("Write it as mask[:, None].", "") and gives_away("Use dim=-1.", "")


# -- the catalogue: four levels each ----------------------------------------------------------------------


@pytest.mark.parametrize("misconception", misconceptions.MISCONCEPTIONS, ids=lambda m: m.id)
def test_every_misconception_has_four_levels_and_level_one_gives_nothing_away(misconception):
    principle, cause, remedy = misconception.principle, misconception.cause, misconception.message
    assert principle and cause and remedy
    assert len({principle, cause, remedy}) == 3 and cause not in remedy and principle not in remedy
    section = SECTION.search(principle)
    assert section and section.group(1) in catalog.CHAPTER_SECTIONS, principle
    assert not gives_away(principle, remedy), gives_away(principle, remedy)
    diagnosis = {"id": misconception.id, "message": f"split_heads(...): {remedy}"}
    assert [(level["level"], level["kind"]) for level in hints.ladder(diagnosis)] == [
        (1, "principle"), (3, "cause"), (4, "remedy")]
    example = {**diagnosis, "example": {"text": "q = [[1.]]  expected [[1.]]  yours [[2.]]"}}
    levels = hints.ladder(example)
    assert [level["level"] for level in levels] == [1, 2, 3, 4]
    assert [level["text"] for level in levels] == [principle, example["example"]["text"], f"split_heads(...): {cause}",
                                                   diagnosis["message"]]


def test_two_misconceptions_no_test_tells_apart_get_both_at_every_level():
    a, b = misconceptions.BY_ID["mask-inverted"], misconceptions.BY_ID["mask-upper-triangle"]
    message = (f"causal_mask(...): these tests cannot tell two mistakes apart, and your answers fit both. "
               f"Either: {a.message}. Or: {b.message}")
    levels = hints.ladder({"id": f"{a.id} | {b.id}", "ids": [a.id, b.id], "message": message})
    assert [level["level"] for level in levels] == [1, 3, 4]
    principle, cause, remedy = (level["text"] for level in levels)
    assert principle.index(a.principle) < principle.index(b.principle) and "Either" in principle
    assert cause.startswith("causal_mask(...): ") and cause.index(a.cause) < cause.index(b.cause)
    assert remedy == message


# -- structural findings and causes: three levels ----------------------------------------------------------


def _strings(node, scope, constants, seen=None):
    """Every string literal in `node` but its docstrings: its constants, the constant parts of its
    f-strings, and the values of the names it reads that `scope` (a function) or the module assigns."""
    seen = set() if seen is None else seen
    docstrings = {id(child.value) for child in ast.walk(node) if isinstance(child, ast.Expr)}
    texts = []
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and isinstance(child.value, str) and id(child) not in docstrings:
            texts.append(child.value)
        elif isinstance(child, ast.Name) and child.id not in seen:
            seen.add(child.id)
            for value in _assigned(scope, child.id) or constants.get(child.id, []):
                texts += _strings(value, scope, constants, seen)
    return texts


def _assigned(scope, name):
    """The values `scope` assigns to `name`, unpacked ones included: `a, b = x, y` gives b y, and
    `a, b = f(...)` gives b the item of each tuple f returns (an ast.Subscript of the call)."""
    values = []
    for node in ast.walk(scope) if scope else ():
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == name:
                values.append(node.value)
            elif isinstance(target, ast.Tuple) and name in [getattr(e, "id", None) for e in target.elts]:
                position = [getattr(e, "id", None) for e in target.elts].index(name)
                sources = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
                values += [source.elts[position] if isinstance(source, ast.Tuple)
                           else ast.Subscript(source, ast.Constant(position)) for source in sources]
    return values


def _prefixes(node, scope, constants, functions=None):
    """The literal beginnings of a key expression: ["mask:diagonal"] for f"mask:diagonal{shift:+d}";
    None for a key passed through (a parameter of `scope`); a key it cannot read fails the test.
    `functions` ({name: FunctionDef}): for an item of what one returns, `f(...)[i]` (see _assigned)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Constant) and node.value is None:
        return []  # no cause: this branch names none
    if isinstance(node, ast.IfExp):
        return [p for branch in (node.body, node.orelse) for p in _prefixes(branch, scope, constants, functions) or []]
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and functions and \
            getattr(node.value.func, "id", None) in functions and isinstance(node.slice, ast.Constant):
        function = functions[node.value.func.id]
        items = [r.value.elts[node.slice.value] for r in ast.walk(function)
                 if isinstance(r, ast.Return) and isinstance(r.value, ast.Tuple)]
        return [p for item in items for p in _prefixes(item, function, constants, functions) or []]
    if isinstance(node, ast.JoinedStr):
        head = ""
        for part in node.values:
            if not isinstance(part, ast.Constant):
                break
            head += part.value
        return [head] if head else None  # f"{label}:…": a finding relabelled, its own key read where it is made
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _prefixes(node.left, scope, constants)
    if isinstance(node, ast.Name):
        if scope and node.id in {arg.arg for arg in ast.walk(scope.args) if isinstance(arg, ast.arg)}:
            return None
        values = _assigned(scope, node.id) or constants.get(node.id)
        if values:
            return [p for value in values for p in _prefixes(value, scope, constants, functions) or []]
    raise AssertionError(f"a key the test cannot read: {ast.unparse(node)}")


def _parsed(paths):
    """([(path, tree)], {module-level name: [its assigned values]}) of the modules at `paths`."""
    trees = [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in paths]
    constants = {}
    for _, tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        constants.setdefault(target.id, []).append(node.value)
    return trees, constants


def _functions(tree):
    """(function, node) for every node inside a function of `tree` (the innermost function)."""
    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
            yield inner, child
            yield from visit(child, inner)
    yield from visit(tree, None)


def analyser_keys():
    """{key prefix: the words of its messages} of every finding the structural analysers can make:
    `Finding(key, message)` and the probes' (key, message, variant)."""
    paths = [GRADER / "diagnosis" / "analysers.py", *sorted((GRADER / "catalog").glob("*/probes.py"))]
    trees, constants = _parsed(paths)
    found = {}
    for _, tree in trees:
        for scope, node in _functions(tree):
            pair = None
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Finding":
                pair = node.args[:2]
            elif isinstance(node, ast.Tuple) and len(node.elts) == 3 and scope is not None and \
                    scope.name.endswith("probes") and isinstance(node.elts[0], (ast.Constant, ast.JoinedStr)):
                pair = node.elts[:2]
            if pair:
                for prefix in _prefixes(pair[0], scope, constants) or []:
                    found[prefix] = found.get(prefix, "") + " ".join(_strings(pair[1], scope, constants))
    return found


def cause_ids():
    """{cause id: the words of the checks that name it} for every `cause=` a grading step or a suite
    passes (a parameter passed on is not a new id), read from the grader's code."""
    trees, constants = _parsed(sorted(GRADER.rglob("*.py")))
    functions = {node.name: node for _, tree in trees for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    found = {}
    for _, tree in trees:
        for scope, node in _functions(tree):
            if not isinstance(node, ast.Call) or getattr(node.func, "id", None) == "Misconception":
                continue  # a misconception's `cause` is its level 3
            for keyword in node.keywords:
                if keyword.arg != "cause":
                    continue
                value = keyword.value
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in functions:
                    ids = [c.value for r in ast.walk(functions[value.func.id]) if isinstance(r, ast.Return)
                           for c in ast.walk(r) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                else:
                    ids = _prefixes(value, scope, constants, functions)
                if ids is None:
                    continue
                called = [functions[c.func.id] for c in ast.walk(scope or tree) if isinstance(c, ast.Call)
                          and isinstance(c.func, ast.Name) and c.func.id in functions]
                words = " ".join(_strings(scope or node, scope, constants) +
                                 [text for f in called for text in _strings(f, f, constants)])
                for cause in ids:
                    found[cause] = found.get(cause, "") + " " + words
    return found


ANALYSER_KEYS = analyser_keys()
CAUSE_IDS = cause_ids()


def test_the_code_is_read_whole():
    """The readers above see what the analysers and the checks make (so that a key they miss is not
    a key passed unseen)."""
    assert {"factor:", "divisor:", "axes:", "normalised-over:", "not-normalised", "mask:inverted", "mask:diagonal",
            "mask:width", "heads:tiled", "split:no-transpose", "cache:whole-storage", "len:max_len", "returned-none",
            "swapped:", "input:", "shape:not-flattened", "softmax-applied"} <= set(ANALYSER_KEYS)
    assert len(ANALYSER_KEYS) >= 40
    # the causes tests/diagnosis/test_diagnoses.py's corpus shows, and the dtype and device ones
    assert {"input-changed-in-place", "cache-capacity", "cache-reallocated", "nan-gradient-on-masked-row",
            "built-on-cpu", "dtype-changed", "mask-not-bool", "device-changed", "no-gradient", "float32-constant",
            "epsilon-in-divisor", "computes-in-float32", "head-at-the-threshold", "parameters-differ",
            "kept-from-an-earlier-call"} <= set(CAUSE_IDS)


@pytest.mark.parametrize("key", sorted(ANALYSER_KEYS))
def test_every_analyser_key_family_has_a_principle_that_gives_nothing_away(key):
    principle = hints.principle(key)
    assert principle and principle in hints.STRUCTURAL.values(), f"no level 1 for the analysers' key {key!r}"
    section = SECTION.search(principle)
    assert section and section.group(1) in catalog.CHAPTER_SECTIONS, principle
    assert not gives_away(principle, ANALYSER_KEYS[key]), gives_away(principle, ANALYSER_KEYS[key])


@pytest.mark.parametrize("cause", sorted(CAUSE_IDS))
def test_every_cause_a_check_names_has_a_principle_that_gives_nothing_away(cause):
    assert cause not in misconceptions.BY_ID
    principle = hints.principle(cause)
    assert principle and principle in {**hints.CAUSES, **misconceptions.CAUSES}.values(), f"no level 1 for {cause!r}"
    section = SECTION.search(principle)
    assert section and section.group(1) in catalog.CHAPTER_SECTIONS, principle
    assert not gives_away(principle, CAUSE_IDS[cause]), gives_away(principle, CAUSE_IDS[cause])


def test_a_structural_finding_or_a_cause_gets_levels_one_to_three():
    message = "split_heads(...): your split into heads reshapes (B, L, D) straight into (B, H, L, d_head)"
    levels = hints.ladder({"id": "split:no-transpose", "message": message, "example": {"text": "x = [[0, 1]]"}})
    assert [(level["level"], level["kind"]) for level in levels] == [(1, "principle"), (2, "example"), (3, "cause")]
    assert levels[0]["text"] == hints.STRUCTURAL["split:"] and levels[2]["text"] == message
    levels = hints.ladder({"id": "cache-capacity", "message": "appending 3 tokens did not raise ValueError"})
    assert [level["level"] for level in levels] == [1, 3] and levels[0]["text"] == misconceptions.CAUSES["cache-capacity"]


def test_a_finding_in_one_returned_item_reads_as_its_family():
    labels = {label for entry in traits.TRAITS.values() for label in
              [*(entry.labels or ()), *(label for item in entry.method_labels.values() for label in item)]}
    assert {"q", "weights", "keys"} <= labels
    for label in labels:
        assert hints.principle(f"{label}:not-normalised") == hints.STRUCTURAL["not-normalised"]
        assert hints.principle(f"{label}:factor:x√d_k") == hints.STRUCTURAL["factor:"]


def test_a_longer_family_wins_and_an_unknown_id_gets_no_principle():
    assert hints.principle("divisor:1") == hints.STRUCTURAL["divisor:1"]
    assert hints.principle("divisor:1/√d_k") == hints.STRUCTURAL["divisor:1/"]
    assert hints.principle("divisor:√L_k") == hints.STRUCTURAL["divisor:"]
    assert hints.principle("mask:diagonal+2") == hints.STRUCTURAL["mask:diagonal+"]
    assert hints.principle("mask:diagonal-1") == hints.STRUCTURAL["mask:diagonal-"]
    assert hints.principle("no-such-thing") == hints.principle("mask:no-such-thing") == ""
    assert hints.ladder({"id": "no-such-thing", "message": "m"}) == [{"level": 3, "kind": "cause", "text": "m"}]


# -- the corpus: every diagnosis of a wrong file has its ladder -------------------------------------------


@pytest.mark.parametrize("entry", [entry for entry in CORPUS if not entry.name.startswith("alt_")],
                         ids=lambda entry: entry.id)
def test_every_diagnosis_of_a_wrong_file_teaches_first(grade, entry):
    result = graded(grade, entry.exercise.id, entry.path, entry.source)
    for diagnosis in result.diagnoses:
        levels = {level["level"]: level["text"] for level in hints.ladder(diagnosis)}
        assert 1 in levels and 3 in levels, (diagnosis["id"], levels)
        assert not [pattern for pattern in CODE if re.search(pattern, levels[1])], levels[1]
        assert levels[1] != levels[3]
