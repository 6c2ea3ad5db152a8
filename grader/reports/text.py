"""The text report a student reads in a terminal, from a GradeReport: a line per passed exercise,
what went wrong in a failed one, and pictures of the matrices a failing check compared."""

import re
import textwrap
from collections import Counter

import click

from grader.grading.results import held_where
from grader.grading.settings import Policy
from grader import reports
from grader.reports import NUMBER, hint_texts, next_hint, student_view

MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("✗", "red"),
         "timeout": ("⏱", "red"), "not_run": ("✗", "red"), "skipped": ("-", "yellow")}
OUTPUT_LINES = 8  # lines of the student's own printing shown under a failed exercise
PROBLEMS_SHOWN = 3  # distinct problems listed per exercise in the short report (-v lists every test)
# How the short report says to list every test; the notebook's check cell, which grades another way,
# sets its own in its grading process (grader.course.notebooks._GRADE).
EVERY_TEST = "lumen-grade {exercise} -v"
NOT_IMPLEMENTED = "not implemented yet"  # how the plugin words a stub's NotImplementedError


def untouched(tests):
    """Whether every test that ran, (status, message) each, met a stub's NotImplementedError: a file not started."""
    ran = [message for status, message in tests if status != "skipped"]
    return bool(ran) and all(message.startswith(NOT_IMPLEMENTED) for message in ran)


def speed_of(tier):
    """A tier in the one line of a passed exercise: its name without "the reference" ("on par", "1.7 to 5.2×
    slower")."""
    return re.sub(r" (than|with) the reference", "", tier.get("name", ""))


FINE = {"linear", "preallocated", "tiled"}  # verdicts (the KV cache's, tiled attention's memory) that need
                                           # no line in the short report


def _points(value):
    return f"{value:g}"


def render_text(report, color=False, width=80, verbose=False, device_skips=True, policy=Policy()):
    """The report a student reads at a glance: a line per passed exercise; per failed one, the
    misconception behind it at the level of its hint ladder, a line per distinct problem (identical
    messages folded) and a picture; a total. Every line fits in `width` columns (long ones wrap
    with a hanging indent), but a hint's example, printed as it is.

    verbose: every test of every exercise, each with its points. device_skips: count the checks
    skipped for want of a GPU in the heading (False when the user chose the device: not shown).
    policy: the course's (`student_view`: the tier and hidden checks it withholds)."""
    report = student_view(report, policy)
    text = _Text(color, width)
    skipped = Counter(test.message for exercise in report.exercises for test in exercise.tests
                      if test.status == "skipped")
    device = sum(count for reason, count in skipped.items() if _for_a_device(reason))
    heading = f"Lumen attention kit [{report.containment_level}] — graded on {report.device}, seed {report.seed}"
    if device and device_skips:  # [kernel] or [process]: how the student's code was confined
        heading += f" ({device} GPU checks skipped)"
    text.line(heading)
    if report.device_note:
        text.line(f"! {report.device_note}", hang=2, fg="yellow")
    text.blank()
    for exercise in report.exercises:
        _exercise(text, exercise, verbose)
    for reason, count in skipped.items():
        if not _for_a_device(reason):
            text.line(f"- {count} skipped: {reason}", hang=2, fg="yellow")
    text.blank()
    passed = sum(exercise.passed for exercise in report.exercises)
    text.line(f"Total: {_points(report.score)}/{_points(report.max_score)} — "
              f"{passed} of {len(report.exercises)} exercise(s) passed", bold=True)
    return text.render()


def _for_a_device(reason):
    """Whether a skip's reason is a device this run does not use (a CUDA case on a CPU machine)."""
    return re.search(r"\b(cuda|cpu)\b", reason, re.IGNORECASE) is not None


def _exercise(text, exercise, verbose):
    score = f"{_points(exercise.score)}/{_points(exercise.max_score)}"
    tier = exercise.tier or {}
    if exercise.passed:
        speed = f"  {speed_of(tier)}" if tier else ""
        text.mark("✓", "green", f"{exercise.id}  {exercise.title}  {score}{speed}"
                  + (f"  {exercise.file}" if verbose else ""), hang=2, bold=True)
    ran = [test for test in exercise.tests if test.status != "skipped"]
    stub = untouched((test.status, test.message) for test in exercise.tests)
    if not exercise.passed:  # an untouched stub names its file on the next line
        where = "" if stub and not verbose else f"  {exercise.file}"
        held = "  held for review" if any(held_where(test.message) for test in ran) else ""  # not a 0 (round 80)
        text.mark("✗", "red", f"{exercise.id}  {exercise.title}  {score}{held}{where}", hang=2, bold=True)
    if exercise.ignored:
        text.line(f"also found, not graded: {', '.join(exercise.ignored)}", indent=4, hang=6)
    for diagnosis in exercise.diagnoses:  # the misconception first: the failures below are its evidence
        _hints(text, diagnosis)
    if reports.NEXT_HINT and any(next_hint(diagnosis) for diagnosis in exercise.diagnoses):
        text.line(f"next hint: {reports.NEXT_HINT.format(exercise=exercise.id)}", indent=6, hang=8, fg="cyan")
    if exercise.error:
        not_run = [test for test in exercise.tests if test.status == "not_run"]
        text.mark("✗", "red", exercise.error, indent=4, hang=6)
        text.line(f"{len(not_run)} tests not run (0/{_points(sum(test.max_score for test in not_run))})", indent=6)
    elif verbose:
        _every_test(text, exercise)
    elif stub:
        names, section = _what_to_write(exercise)
        text.line(f"{NOT_IMPLEMENTED}: {names} in {exercise.file}" + (f"; read '{section}'" if section else ""),
                  indent=4, hang=6)
    elif not exercise.passed:
        _problems(text, exercise, ran)
    if tier and (verbose or tier.get("id") not in ("on-par", None) or not exercise.passed):
        text.line(f"performance: {tier.get('message') or tier.get('name')}", indent=4, hang=6, fg="cyan")
    for note in [] if not tier else [tier.get("complexity"), tier.get("memory")]:
        if isinstance(note, dict) and (verbose or note.get("verdict") not in FINE) and note.get("message"):
            text.line(note["message"], indent=6, hang=8)
    if exercise.output and not exercise.passed:
        printed = exercise.output.splitlines()
        text.line("your code printed:", indent=4)
        for line in printed[:OUTPUT_LINES]:
            text.line(f"| {line}", indent=4, hang=6)
        if len(printed) > OUTPUT_LINES:
            text.line(f"| … {len(printed) - OUTPUT_LINES} more lines", indent=4)
    if verbose or not exercise.passed:
        text.blank()


def _hints(text, diagnosis):
    """The levels of a diagnosis's hint ladder a student sees; an example as it is printed."""
    for heading, said, kind in hint_texts(diagnosis):
        if kind == "example":
            text.line(f"➜ {heading}:", indent=4, hang=6, fg="cyan", bold=True)
            text.verbatim(said.splitlines(), indent=6)
        else:
            text.line(f"➜ {heading}: {said}" if heading else f"➜ {said}", indent=4, hang=6, fg="cyan", bold=True)


def _every_test(text, exercise):
    """-v: a line per test with its points, its message ("as above" where the last one said the same:
    a held file's paragraph once, not under every test) and its picture; skips counted."""
    drawn, skipped, said, last = _drawn(exercise), Counter(), {}, None
    for test in exercise.tests:
        if test.status == "skipped":
            skipped[test.message] += 1
            continue
        symbol, colour = MARKS.get(test.status, ("✗", "red"))
        text.mark(symbol, colour, f"{_points(test.score)}/{_points(test.max_score)}  {test.name}", indent=4, hang=8)
        message = _without_tolerance(test, said) if test.message else None
        if message:
            text.line("as above" if message == last else message, indent=10, hang=10)
        last = message
        if id(test) in drawn:
            text.picture(test.details["picture"], indent=10)
    _tolerances(text, said, indent=4)
    for reason, count in skipped.items():
        text.line(f"- {count} skipped: {reason}", indent=4, hang=6, fg="yellow")


def _problems(text, exercise, ran):
    """A failed exercise, short: a line per distinct problem (the tests that share a message folded
    into one), the first PROBLEMS_SHOWN of them, each failing function's picture under its line.
    A problem of a kind not shown yet (another function, another mistake) comes before a variant of
    one already shown, so that three sizes of one wrong split_heads never hide a wrong merge_heads."""
    groups = {}  # problem -> the tests that failed with it, in the order they ran
    for test in ran:
        if test.status != "passed":
            groups.setdefault(_problem(test), []).append(test)
    kinds = [_kind(tests[0]) for tests in groups.values()]
    firsts = [index for index, kind in enumerate(kinds) if kind not in kinds[:index]]
    order = [*firsts, *(index for index in range(len(kinds)) if index not in firsts)]
    ordered = [list(groups.values())[index] for index in order]
    drawn, said = _drawn(exercise), {}
    shown = PROBLEMS_SHOWN if len(ordered) > PROBLEMS_SHOWN + 1 else len(ordered)  # never "1 more"
    for tests in ordered[:shown]:
        symbol, colour, message = *MARKS.get(tests[0].status, ("✗", "red")), _without_tolerance(tests[0], said)
        if len(tests) == 1:
            what = f"{tests[0].name}: {message}" if message else tests[0].name
        else:
            what = f"{'all ' if len(tests) == len(ran) else ''}{len(tests)} tests: {message or tests[0].status}"
        text.mark(symbol, colour, what, indent=4, hang=6)
        for test in tests:
            if id(test) in drawn:
                text.picture(test.details["picture"], indent=6)
    _tolerances(text, said, indent=4)
    if len(ordered) > shown:
        hidden = ordered[shown:]
        more = sum(len(tests) for tests in hidden)
        seen = {_kind(tests[0]) for tests in ordered[:shown]}
        alike = sum(_kind(tests[0]) in seen for tests in hidden)
        like = ("" if not alike else ", all like those above" if alike == len(hidden) else
                f", {alike} of them like one shown above")  # round 80: "6 more problems …, 1 like those above"
        text.line(f"… {_count(len(hidden), 'more problem')} in {_count(more, 'test')}{like}: "
                  f"{EVERY_TEST.format(exercise=exercise.id)} lists every test", indent=4, hang=6)


def _problem(test):
    """What a failure says apart from the call that showed it: its message with the subject (the
    call as the message names it: `scaled_scores(q, k)`, `scaled_scores with d_k = 10`) cut out,
    and the function called. Failures that differ only in the call's arguments are one problem;
    another function, or another thing wrong, is another."""
    subject = test.details.get("subject")
    if subject and subject in test.message:
        target = (test.details.get("call") or {}).get("target")
        return repr(target), test.message.replace(subject, "\0", 1)
    return test.message




def _kind(test):
    """The kind of a problem, for the order of the short report: the function it showed in, with
    the misconception it showed, else its status and message with every number cut out (one wrong
    formula seen at several sizes and dtypes is one kind; a wrong shape, a crash are others)."""
    target = (test.details.get("call") or {}).get("target")
    if test.details.get("diagnosis"):
        return repr(target), test.details["diagnosis"]
    problem = _problem(test)
    return repr(target), test.status, NUMBER.sub("#", problem[1] if isinstance(problem, tuple) else problem)


def _without_tolerance(test, said):
    """The test's message without its dtype's tolerance (`(tolerance 1e-05 + 0.0001·|expected|)`),
    which is noted in `said` ({dtype: tolerance}) for its block to say once (`_tolerances`)."""
    tolerance = test.details.get("tolerance")
    phrase = f" (tolerance {tolerance['text']})" if tolerance else None
    if not phrase or phrase not in test.message:
        return test.message
    said[tolerance["dtype"]] = tolerance["text"]
    return test.message.replace(phrase, "", 1)


def _tolerances(text, said, indent):
    """The tolerances of the mismatches listed above, once for the block."""
    if said:
        text.line("(tolerance: " + ", ".join(f"{value} in {dtype}" for dtype, value in said.items()) + ")",
                  indent=indent, hang=indent + 1)


def _count(n, noun):
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _what_to_write(exercise):
    """The names an exercise's file defines and the chapter section it practises (from the catalogue)."""
    from grader import catalog

    try:
        found = catalog.find(exercise.id)
    except catalog.UnknownExercise:
        return "every function of the exercise", None
    return ", ".join(found.names), found.section


class _Text:
    """Lines that fit a width: each wrapped with a hanging indent, then coloured (when asked),
    so that escape codes never count towards the width."""

    def __init__(self, color, width):
        self.color, self.width, self.lines = color, max(int(width), 40), []

    def _style(self, text, **style):
        return click.style(text, **style) if self.color and style else text

    def _wrap(self, text, indent, hang):
        return textwrap.wrap(text, self.width, initial_indent=" " * indent, subsequent_indent=" " * hang,
                             break_long_words=False, break_on_hyphens=False, drop_whitespace=True) or [""]

    def line(self, text, indent=0, hang=None, **style):
        for line in self._wrap(text, indent, indent + 2 if hang is None else hang):
            self.lines.append(self._style(line, **style))

    def mark(self, symbol, colour, text, indent=0, hang=None, bold=False):
        """A line that starts with a coloured mark (✓, ✗): only the mark is coloured, the rest
        bold when asked."""
        for number, line in enumerate(self._wrap(f"{symbol} {text}", indent, indent + 2 if hang is None else hang)):
            if number == 0:
                line = self._style(symbol, fg=colour) + self._style(line[indent + len(symbol):], bold=bold)
                line = " " * indent + line
            else:
                line = self._style(line, bold=bold)
            self.lines.append(line)

    def picture(self, picture, indent):
        caption, *grid = picture_lines(picture)
        self.line(caption, indent=indent, hang=indent + 2)
        self.lines.extend(" " * indent + row for row in grid)
        if picture.get("note"):  # how the picture reads what the code did (a finite fill drawn as masked)
            self.line(f"({picture['note']})", indent=indent, hang=indent + 1)

    def verbatim(self, lines, indent):
        """Lines as they are (an example's columns line up), indented; one too long for the width
        (a sentence, a long call) is wrapped under its own indent instead."""
        for line in lines:
            if indent + len(line) <= self.width or " " not in line.strip():
                self.lines.append(" " * indent + line)
            else:
                own = indent + len(line) - len(line.lstrip())
                self.line(line.strip(), indent=own, hang=own + 2)

    def blank(self):
        if self.lines and self.lines[-1]:
            self.lines.append("")

    def render(self):
        return "\n".join(self.lines) + "\n"


def _drawn(exercise):
    """The failed tests whose pictures the text shows: one per function, the first whose call was
    diagnosed (it shows the mistake), else the first."""
    chosen = {}
    for test in exercise.tests:
        if "picture" in test.details:
            target = test.details.get("call", {}).get("target")
            if target not in chosen or ("diagnosis" in test.details and "diagnosis" not in chosen[target].details):
                chosen[target] = test
    return {id(test) for test in chosen.values()}


SHADES = ((0.005, "·"), (0.25, "░"), (0.5, "▒"), (0.75, "▓"), (float("inf"), "█"))  # weight below: char
NON_FINITE = {"nan": "N", "inf": "∞", "-inf": "∞"}


def picture_lines(picture):
    """A failing mask or weight matrix drawn beside the expected one (or, with `titles`, the two
    matrices they name: a head's pattern and the cells its score averages), a character per entry:
    rows are queries (or sequences), columns keys; a mask is █ (may attend) or ·, a weight is shaded
    from █ (near 1) to · (0); N marks a NaN."""
    def cell(value):
        if isinstance(value, str):
            return NON_FINITE.get(value, "?")
        if picture["kind"] == "mask":
            return "█" if value else "·"
        return next(char for limit, char in SHADES if value < limit)

    grids = [["".join(cell(value) for value in row) for row in picture[side]] for side in ("expected", "got")]
    left, right = picture.get("titles", ("expected", "yours"))  # a head beside its cells: not expected/yours
    width = max(len(left), len(grids[0][0]) if grids[0] else 0)
    where = f" [{', '.join(map(str, picture['slice']))}]" if picture["slice"] else ""
    legend = "█ may attend, · masked" if picture["kind"] == "mask" else "█▓▒░ weight 1 to 0, · zero"
    lines = [f"{picture['rows']} × {picture['columns']}{where} ({legend}, N NaN):",
             f"{left.ljust(width)}   {right}"]
    lines += [f"{want.ljust(width)}   {got}" for want, got in zip(*grids)]
    rows, columns = picture["shape"]
    if rows > len(grids[0]) or columns > len(grids[0][0]):
        lines.append(f"(the first {len(grids[0])} × {len(grids[0][0])} of {rows} × {columns})")
    return lines
