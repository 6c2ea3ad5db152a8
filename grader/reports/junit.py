"""JUnit XML of a GradeReport, for CI servers (Jenkins, GitLab, GitHub's test reporters)."""

import ast
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path, PurePath

from grader.reports import hint_lines
from grader.sandbox import files


def _points(value):
    return f"{value:g}"


JUNIT_ELEMENTS = {"failed": "failure", "error": "error", "timeout": "error", "not_run": "error",
                  "skipped": "skipped"}
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value):
    """Text XML 1.0 can carry: control characters (ANSI colours, NULs a student printed) -> U+FFFD."""
    return _NOT_XML.sub("\ufffd", str(value))


def render(report):
    """JUnit XML valid against Jenkins' junit-10.xsd, in pytest's xunit2 conventions: a <testsuite>
    per exercise (`file`: the student's file), a <testcase> per check (classname: the student's
    file as a dotted path, name, time). Wrong answers are <failure>s carrying the teaching message,
    crashes, missing code and timeouts <error>s; both end with `at FILE:LINE (function)`, the line
    a reporter (GitHub's action-junit-report) annotates. Checks for a device the run did not use
    (CUDA on a CPU runner) are left out and counted once, in the suite's properties."""
    root = ET.Element("testsuites", name="lumen-grade")
    totals = Counter()
    for exercise in report.exercises:
        cases = [test for test in exercise.tests if not _other_device(test, report.device)]
        counts = Counter(JUNIT_ELEMENTS.get(test.status, "passed") for test in cases)
        counts.update(tests=len(cases), time=sum(test.duration for test in cases))
        totals.update(counts)
        suite = ET.SubElement(root, "testsuite", _counts(counts, name=f"{exercise.id}: {exercise.title}"))
        suite.set("file", _xml_text(exercise.file))
        facts = {"score": _points(exercise.score), "max_score": _points(exercise.max_score),
                 "file": exercise.file, "device": report.device, "seed": report.seed}
        if len(cases) < len(exercise.tests):
            facts["not_run"] = (f"{len(exercise.tests) - len(cases)} check(s) for a device this run did not "
                                f"use ({report.device} only)")
        if exercise.tier:
            facts["tier"] = exercise.tier.get("name")
        properties = ET.SubElement(suite, "properties")
        for name, value in facts.items():
            ET.SubElement(properties, "property", name=name, value=_xml_text(value))
        classname = _dotted(exercise.file)
        lines = _function_lines(exercise.file)
        for test in cases:
            case = ET.SubElement(suite, "testcase", classname=classname, name=_xml_text(test.name),
                                 time=f"{test.duration:.3f}")
            element = JUNIT_ELEMENTS.get(test.status)
            if element == "skipped":
                ET.SubElement(case, element, message=_xml_text(test.message))
            elif element:
                outcome = ET.SubElement(case, element, message=_xml_text(test.message), type=test.status)
                text = [test.message, f"{_points(test.score)}/{_points(test.max_score)} points"]
                where = _where(test, exercise.file, lines)
                if where:
                    text.append(where)
                outcome.text = _xml_text("\n".join(text))
        notes = [f"not graded: {exercise.error}"] if exercise.error else []
        notes += [line for diagnosis in exercise.diagnoses for line in hint_lines(diagnosis)]
        if exercise.output:
            notes += ["your code printed:", exercise.output]
        if notes:
            ET.SubElement(suite, "system-out").text = _xml_text("\n".join(notes))
    for name, value in _counts(totals, name="lumen-grade").items():
        if name != "skipped":  # junit-10.xsd has no `skipped` on <testsuites>
            root.set(name, value)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _counts(counts, name):
    """The attributes JUnit readers total: tests, failures, errors, skipped, time."""
    return {"name": _xml_text(name), "tests": str(counts["tests"]), "failures": str(counts["failure"]),
            "errors": str(counts["error"]), "skipped": str(counts["skipped"]), "time": f"{counts['time']:.3f}"}


def _other_device(test, devices):
    """A check skipped because it is for a device the run did not use (a CUDA case on a CPU run)."""
    used = devices.split("+")
    return test.status == "skipped" and any(
        device not in used and re.search(rf"(?:^|[\[-]){device}(?:[\]-]|$)", test.name) for device in ("cuda",))


def _dotted(file):
    """pytest's xunit2 classname for a file: exercises/exercise3_scaling.py -> exercises.exercise3_scaling."""
    path = PurePath(file)
    parts = [part for part in path.with_suffix("").parts if part not in ("/", "..", ".")]
    return _xml_text(".".join(parts[-3:]) or path.stem)


def _function_lines(file):
    """{name: line} of the functions and classes (and Class.method) of a student's .py file, read
    with `ast` (never run) as the judge reads it (`files.read_submission`: a bounded regular file,
    opened non-blocking, never through a link: round 27's a03 named /dev/zero and a pipe); empty for a
    notebook or a file that is refused or does not parse."""
    path = Path(file)
    if path.suffix != ".py":
        return {}
    try:
        tree = ast.parse(files.read_submission(path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):  # UnsafeFile is an OSError
        return {}
    lines = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            lines[node.name] = node.lineno
        if isinstance(node, ast.ClassDef):
            lines.update({f"{node.name}.{item.name}": item.lineno for item in node.body
                          if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))})
    return lines


_FRAME = re.compile(r", line (\d+), in ([\w<>.]+)")


def _where(test, file, lines):
    """`at FILE:LINE (function)` for a failed check in a .py file: the student's own frame where their
    code raised, else the definition of the function (or method) the failing call went to. None for
    a notebook: its code's lines are not the notebook's."""
    if PurePath(file).suffix != ".py":
        return ""
    frames = test.details.get("frames") or []
    found = _FRAME.search(frames[-1]) if frames else None
    if found:
        return f"at {file}:{found.group(1)} ({found.group(2)})"
    call = test.details.get("call") or {}
    target = call.get("target")
    if not isinstance(target, str):
        return ""
    method = call.get("method")
    method = "forward" if method in (None, "__call__") and f"{target}.forward" in lines else method
    for name in (f"{target}.{method}", target):
        if name in lines:
            return f"at {file}:{lines[name]} ({name})"
    return ""
