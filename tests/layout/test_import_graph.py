"""The layout's promise: the folders are the data path and no import runs back up it.

The test walks every import statement of the grader's modules (those inside functions too) and
fails on an import cycle, or on an import of a module of a later stage than the importing one's.
Stages, from the bottom: each may import only its own and earlier ones. (docs/architecture.md
explains the order.)
"""

import ast
from pathlib import Path

GRADER = Path(__file__).resolve().parents[2] / "grader"

# (stage, the modules in it: a name stands for itself and every module below it), bottom first
STAGES = (
    ("helpers", ("grader", "grader.nested", "grader.oracle")),
    ("sandbox", ("grader.sandbox",)),
    ("perf vocabulary", ("grader.perf", "grader.perf.cases", "grader.perf.rounds")),  # what declarations are written in
    ("catalog", ("grader.catalog",)),  # the registry and each exercise's declaration
    ("grading core", ("grader.grading", "grader.grading.compare", "grader.grading.results", "grader.grading.testkit",
                      "grader.grading.settings", "grader.grading.submission", "grader.grading.student")),
    ("diagnosis", ("grader.diagnosis",)),
    ("exercise content", ("grader.catalog.*.misconceptions", "grader.catalog.*.probes", "grader.catalog.*.examples",
                          "grader.catalog.*.test_*")),  # by path
    ("timing", ("grader.perf.child", "grader.perf.judge")),
    ("grading run", ("grader.grading.plugin", "grader.grading.runner")),
    ("reports", ("grader.reports",)),
    ("course", ("grader.course",)),
    ("cli", ("grader.cli", "grader.__main__")),
)


def module_name(path):
    parts = list(path.relative_to(GRADER.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in GRADER.rglob("*.py")}


def _matches(pattern, name):
    if "*" in pattern:
        want, got = pattern.split("."), name.split(".")
        return len(want) == len(got) and all(w == g or w == "*" or (w.endswith("*") and g.startswith(w[:-1]))
                                             for w, g in zip(want, got))
    return name == pattern or name.startswith(pattern + ".")


def stage(name):
    """The index of a module's stage: its most specific pattern decides (the longest match)."""
    found = [(len(pattern.replace("*", "")), pattern.count("*") == 0, index)
             for index, (_, patterns) in enumerate(STAGES) for pattern in patterns if _matches(pattern, name)]
    assert found, f"{name} is in no stage: add it to STAGES"
    return max(found)[2]


def imports(name):
    """The grader modules `name` imports, anywhere in its code."""
    path, found = MODULES[name], set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {target for target in found if target in MODULES and target != name}


GRAPH = {name: imports(name) for name in MODULES}


def test_every_module_has_a_stage_and_the_stages_are_the_documented_ones():
    assert all(stage(name) is not None for name in MODULES)
    architecture = (GRADER.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for title, _ in STAGES:
        assert title in architecture, f"docs/architecture.md does not name the stage {title!r}"


def test_no_import_runs_up_the_stages():
    upward = sorted(f"{name} ({STAGES[stage(name)][0]}) imports {target} ({STAGES[stage(target)][0]})"
                    for name, targets in GRAPH.items() for target in targets
                    if stage(target) > stage(name) and not name.startswith(target + "."))
    assert not upward, "\n".join(upward)


def test_no_import_cycles():
    cycles, state = [], {}

    def visit(name, path):
        state[name] = "open"
        for target in sorted(GRAPH[name]):
            if name.startswith(target + "."):  # a module importing its own package (its __init__): no cycle
                continue
            if state.get(target) == "open":
                cycles.append(" -> ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target, path + [target])
        state[name] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])
    assert not cycles, "\n".join(cycles)


def test_the_walk_sees_imports_inside_functions():
    """The walk is not blind: the CLI imports the runner inside its commands (torch is slow to import)."""
    assert "grader.grading.runner" in GRAPH["grader.cli.main"]
    assert "grader.course.watch" in GRAPH["grader.cli.main"]
