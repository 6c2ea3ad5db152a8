"""The feedback page: one self-contained HTML file per student (`--format html`, `batch --feedback`).

Readable offline and as an upload to an LMS: no JavaScript, no external stylesheet, font or image;
the pictures of a failing mask or attention-weight matrix are inline SVG heatmaps, the expected
matrix beside the student's (and, for weights, their difference on a diverging scale). A block
per problem (the cases of one mistake together), in words a student reads: the misconceptions'
ids stay in the JSON. A file that could not be graded has its reason once, and one never handed
in is named as such, not as a file graded. Everything comes from the JSON report
(GradeReport.to_dict()), so a page can be made again later from a batch's grades/ folder. Every piece of text is escaped: a
student's printing or messages can never become markup.
"""

from html import escape

from grader import reports
from grader.reports import NUMBER, hint_texts, next_hint

CELL = (12, 28, 224)  # pixels per matrix entry: at least, at most, and the size a whole matrix aims at
STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1d1f;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
.meta { color: #555; margin-top: 0; }
table.scores { border-collapse: collapse; margin: 1rem 0; display: block; overflow-x: auto; max-width: 100%; }
table.scores th, table.scores td { border-bottom: 1px solid #ddd; padding: .3rem .7rem; text-align: left; }
table.scores td.points { text-align: right; font-variant-numeric: tabular-nums; }
.passed { color: #17692c; } .failed { color: #b3261e; }
.test { border-left: 4px solid #b3261e; padding: .2rem .8rem; margin: .8rem 0; background: #fdf6f5; }
.test h3 { font-size: 1rem; margin: .2rem 0; font-family: ui-monospace, Menlo, Consolas, monospace; }
.message, pre { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { background: #f4f4f4; padding: .6rem; font-size: .85rem; }
.diagnosis { border-left: 4px solid #1f5fa8; background: #f1f6fc; padding: .5rem .8rem; margin: 1rem 0; }
.heatmaps { display: flex; flex-wrap: wrap; gap: 2rem; margin: .6rem 0; }
.heatmaps figure { margin: 0; } .heatmaps figcaption { font-weight: 600; margin-bottom: .3rem; }
.heatmaps svg { display: block; outline: 1px solid #c8c8cc; }
.cases { color: #555; font-size: .85rem; font-family: ui-monospace, Menlo, Consolas, monospace; margin: 0; }
.legend { color: #555; font-size: .85rem; }
"""
COLOURS = {"attend": "#1f5fa8", "masked": "#e9e9ec", "nan": "#1d1d1f", "differs": "#ff9f1c"}
SEQUENTIAL = ("#f7fbff", "#c6dbef", "#6baed6", "#2171b5", "#08306b")  # weights: ColorBrewer Blues, 0 to 1
DIVERGING = ("#2166ac", "#92c5de", "#f7f7f7", "#f4a582", "#b2182b")  # yours − expected: RdBu, − to +


def render(report, *, student=None, status=None, message=None, files=()):
    """The page for a JSON report (None: the student has no report; `status` and `message` say why); `files`: batch's
    lines on the student's files, which it graded and which not, and why (round 86: a misnamed file, never named)."""
    title = f"Lumen attention kit — feedback for {student}" if student else "Lumen attention kit — feedback"
    body = [f"<h1>{escape(title)}</h1>"]
    if report is None:
        body.append(f'<p class="meta">status: <strong>{escape(status or "not graded")}</strong></p>')
        body.append(f'<p class="message">{escape(message or "no report")}</p>')
    else:
        body += _summary(report)
        if files:
            body.append('<ul class="files">' + "".join(f"<li>{escape(line)}</li>" for line in files) + "</ul>")
        for exercise in report["exercises"]:
            body += _exercise(exercise)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def render_record(record):
    """The page of a batch record (grades/STUDENT.json)."""
    return render(record.get("report"), student=record["student"], status=record["status"],
                  message=record.get("message"), files=record.get("files", ()))


def _points(value):
    return f"{value:g}"


def _summary(report):
    percent = f" ({100 * report['score'] / report['max_score']:.1f}%)" if report["max_score"] else ""
    lines = [f'<p class="meta">Total <strong>{_points(report["score"])} / {_points(report["max_score"])}'
             f"</strong>{percent} — graded on {escape(str(report['device']))}, seed {escape(str(report['seed']))}</p>",
             '<table class="scores">',
             "<thead><tr><th>exercise</th><th>title</th><th>file</th><th>points</th><th>result</th>"
             "<th>performance</th></tr></thead>", "<tbody>"]
    for exercise in report["exercises"]:
        verdict = ('<span class="passed">✓ passed</span>' if exercise["passed"]
                   else '<span class="failed">✗ not yet</span>')
        tier = (exercise.get("tier") or {}).get("name") or ""
        file = (f"<code>{escape(exercise['file'])}</code>" if exercise.get("handed_in", True)
                else '<span class="failed">not handed in</span>')
        lines.append(f'<tr><td><a href="#{escape(exercise["id"])}">{escape(exercise["id"])}</a></td>'
                     f"<td>{escape(exercise['title'])}</td><td>{file}</td>"
                     f'<td class="points">{_points(exercise["score"])} / {_points(exercise["max_score"])}</td>'
                     f"<td>{verdict}</td><td>{escape(str(tier))}</td></tr>")
    lines += ["</tbody>", "</table>"]
    return lines


def _exercise(exercise):
    tests = exercise["tests"]
    ran = [test for test in tests if test["status"] != "skipped"]
    passed = [test for test in ran if test["status"] == "passed"]
    lines = [f'<section id="{escape(exercise["id"])}">',
             f"<h2>{escape(exercise['id'])}: {escape(exercise['title'])} — "
             f"{_points(exercise['score'])} / {_points(exercise['max_score'])}</h2>",
             f"<p>{len(passed)} of {len(ran)} checks passed"
             + (f"; {len(tests) - len(ran)} not run here (another device)" if len(ran) < len(tests) else "")
             + ".</p>"]
    anchors = {}  # misconception id -> the anchor of its explanation on this page
    for number, diagnosis in enumerate(exercise.get("diagnoses", []), start=1):
        anchor = f"{exercise['id']}-mistake-{number}"
        for shown in (diagnosis.get("id"), *diagnosis.get("ids", ())):
            anchors.setdefault(shown, anchor)
        lines += _diagnosis(diagnosis, anchor, exercise["id"])
    failed = [test for test in ran if test["status"] != "passed"]
    if exercise.get("error"):  # the reason once, for every check it kept from running
        lines += _not_graded(exercise, [test for test in failed if test["status"] == "not_run"])
        failed = [test for test in failed if test["status"] != "not_run"]
    said = {}  # dtype -> its tolerance, said once under the failures
    for group in _groups(failed):
        lines += _failure(group, anchors, said)
    if said:
        lines.append('<p class="legend">tolerance: '
                     + escape(", ".join(f"{value} in {dtype}" for dtype, value in said.items())) + "</p>")
    if exercise.get("tier") and exercise["tier"].get("message"):
        lines.append(f"<p><strong>performance</strong>: {escape(exercise['tier']['message'])}</p>")
    if exercise.get("output"):
        lines += ["<p>your code printed:</p>", f"<pre>{escape(exercise['output'])}</pre>"]
    if passed:
        lines.append("<details><summary>checks passed</summary><ul>"
                     + "".join(f"<li>✓ {escape(test['name'])}</li>" for test in passed) + "</ul></details>")
    lines.append("</section>")
    return lines


def _diagnosis(diagnosis, anchor, exercise_id):
    """A misconception's block: every level of its hint ladder the student has reached, the
    smallest example as printed, with its pictures when it has them; how to ask for the next."""
    lines = [f'<div class="diagnosis" id="{escape(anchor)}">']
    for heading, text, kind in hint_texts(diagnosis, reached=True):
        title = f"<strong>{escape(heading)}</strong>: " if heading else "➜ "
        if kind == "example":
            lines += [f"<p>{title}</p>", f"<pre>{escape(text)}</pre>"]
            lines += [line for picture in _pictures(diagnosis.get("example")) for line in heatmaps(picture)]
        else:
            lines.append(f'<p class="message">{title}{escape(text)}</p>')
    if reports.NEXT_HINT and next_hint(diagnosis):
        lines.append(f'<p class="legend">next hint: <code>{escape(reports.NEXT_HINT.format(exercise=exercise_id))}</code></p>')
    return lines + ["</div>"]


PICTURE_KEYS = ("kind", "expected", "got", "shape", "rows", "columns")  # what `heatmaps` draws


def _pictures(example):
    """The pictures of a hint's example (one, or a list) that `heatmaps` can draw."""
    pictures = (example or {}).get("pictures") or []
    pictures = [pictures] if isinstance(pictures, dict) else pictures
    return [picture for picture in pictures if isinstance(picture, dict) and all(key in picture for key in PICTURE_KEYS)]


def _not_graded(exercise, not_run):
    """The block that says why the exercise's file could not be graded (or was never handed in),
    and how many checks that kept from running: their messages only point here."""
    heading = "could not be graded" if exercise.get("handed_in", True) else "not handed in"
    worth = _points(sum(test["max_score"] for test in not_run))
    return ['<div class="test" data-status="not_run">', f"<h3>✗ {heading}</h3>",
            f'<p class="message">{escape(exercise["error"])}</p>',
            f'<p class="legend">{len(not_run)} checks not run (0 / {worth}).</p>', "</div>"]


def _groups(failed):
    """The failed tests as blocks: the tests with one message are one block, and so are the cases of
    one test function (its sizes, dtypes) that fail alike but for the numbers, or show one mistake."""
    groups, found = [], {}  # key -> its group; a test has three keys
    for test in failed:
        function = (test["name"].split("[")[0], test["status"])
        keys = [("message", test["message"]), (*function, NUMBER.sub("#", _message(test)))]
        keys += [(*function, "diagnosis", test["diagnosis"])] if test.get("diagnosis") else []
        group = next((found[key] for key in keys if key in found), None)
        if group is None:
            group = []
            groups.append(group)
        group.append(test)
        for key in keys:
            found.setdefault(key, group)
    return groups


def _message(test, said=None):
    """The test's message without its dtype's tolerance, which is noted in `said` to be said once."""
    tolerance = test.get("tolerance")
    phrase = f" (tolerance {tolerance['text']})" if isinstance(tolerance, dict) else None
    if not phrase or phrase not in test["message"]:
        return test["message"]
    if said is not None:
        said[tolerance["dtype"]] = tolerance["text"]
    return test["message"].replace(phrase, "", 1)


def _failure(group, anchors, said):
    """A block for failed tests that show one problem: their names and points, one message, the
    mistake it shows (a link to its explanation) and one picture: the first test's that was
    diagnosed (it shows the mistake), else the first's."""
    drawn = next((test for test in group if test.get("picture") and test.get("diagnosis")),
                 next((test for test in group if test.get("picture")), None))
    first = drawn or group[0]
    score = f"{_points(sum(t['score'] for t in group))} / {_points(sum(t['max_score'] for t in group))}"
    function = group[0]["name"].split("[")[0]
    if len(group) == 1:
        title = group[0]["name"]
    elif all(test["name"].split("[")[0] == function for test in group):
        title = f"{function} — {len(group)} cases"
    else:
        title = f"{len(group)} checks"
    lines = [f'<div class="test" data-status="{escape(first["status"])}">', f"<h3>✗ {escape(title)} — {score}</h3>"]
    if len(group) > 1:
        lines.append('<p class="cases">' + escape(", ".join(test["name"] for test in group)) + "</p>")
    lines.append(f'<p class="message">{escape(_message(first, said))}</p>')
    for test in group:
        _message(test, said)
    shown = next((anchors[test["diagnosis"]] for test in group if test.get("diagnosis") in anchors), None)
    if shown:
        # the whole sentence is the link: no text beside it that a reader could space apart from it
        these = "This check shows" if len(group) == 1 else "These checks show"
        lines.append(f'<p class="legend"><a href="#{escape(shown)}">{these} the mistake explained above.</a></p>')
    if drawn:
        lines += heatmaps(drawn["picture"])
    lines.append("</div>")
    return lines


def heatmaps(picture):
    """The expected matrix and the student's, side by side, as inline SVGs; for weights, a third
    shows yours − expected on a diverging scale. Weights are shaded per row (a row is one query's
    weights: its largest is the darkest), so that weights of 0.1 to 0.3 show their structure; the
    entries that differ are outlined only where they are a few among many."""
    where = f" [{', '.join(map(str, picture['slice']))}]" if picture.get("slice") else ""
    rows, columns = picture["shape"]
    shown_rows, shown_columns = len(picture["expected"]), len(picture["expected"][0]) if picture["expected"] else 0
    titles = picture.get("titles")  # two matrices that are not expected and yours (a head, its cells)
    differs = set() if titles else _differing(picture)
    cells = shown_rows * shown_columns
    outline = differs if 0 < len(differs) <= cells // 2 else set()
    lines = ['<div class="heatmaps">']
    for side, caption in zip(("expected", "got"), titles or ("expected", "yours")):
        grid = picture[side]
        lines += [f'<figure data-side="{side}">', f"<figcaption>{escape(caption)}</figcaption>",
                  _svg(grid, lambda i, j, g=grid: _fill(picture["kind"], g, i, j),
                       outline if side == "got" else set(), f"{caption}: {picture['kind']}"), "</figure>"]
    spread = 0.0
    if picture["kind"] == "weights" and not titles:
        difference = [[_minus(got, want) for got, want in zip(mine, theirs)]
                      for mine, theirs in zip(picture["got"], picture["expected"])]
        spread = max((abs(value) for row in difference for value in row if isinstance(value, float)), default=0.0)
        lines += ['<figure data-side="difference">', "<figcaption>yours − expected</figcaption>",
                  _svg(difference, lambda i, j: _diverging(difference[i][j], spread), set(),
                       "yours minus expected"), "</figure>"]
    lines.append("</div>")
    if picture["kind"] == "mask":
        legend = "dark: may attend, light: masked"
    else:
        legend = "each row shaded from white (0) to dark blue (its largest weight)"
        if spread:
            legend += f"; yours − expected: blue where yours is smaller, red where larger (up to ±{spread:.2g})"
    if not titles:
        legend += (f"; yours differs in {len(differs)} of {cells} entries"
                   + (", outlined in orange" if outline else ""))
    cut = (f"; the first {shown_rows} × {shown_columns} of {rows} × {columns}"
           if (rows, columns) != (shown_rows, shown_columns) else "")
    lines.append(f'<p class="legend">{escape(picture["rows"])} (rows) × {escape(picture["columns"])} (columns)'
                 f"{escape(where)}: {escape(legend)}; black: NaN or infinite{cut}.</p>")
    return lines


def _svg(grid, fill, outlined, label):
    """A grid of cells, each filled by `fill(i, j)`; the (i, j) in `outlined` outlined in orange."""
    height, width = len(grid), len(grid[0]) if grid else 0
    smallest, largest, target = CELL
    cell = max(smallest, min(largest, target // max(height, width, 1)))
    cells = []
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            stroke = (f' stroke="{COLOURS["differs"]}" stroke-width="2"' if (i, j) in outlined
                      else ' stroke="#ffffff" stroke-width="1"')
            shown = f"{value:.3g}" if isinstance(value, float) else str(value)
            cells.append(f'<rect x="{j * cell}" y="{i * cell}" width="{cell}" height="{cell}" fill="{fill(i, j)}"'
                         f"{stroke}><title>[{i}, {j}] {escape(shown)}</title></rect>")
    return (f'<svg role="img" aria-label="{escape(f"{label}, {height} × {width}")}" '
            f'width="{width * cell}" height="{height * cell}" viewBox="0 0 {width * cell} {height * cell}">'
            + "".join(cells) + "</svg>")


def _fill(kind, grid, i, j):
    value = grid[i][j]
    if isinstance(value, str):  # "nan", "inf", "-inf"
        return COLOURS["nan"]
    if kind == "mask":
        return COLOURS["attend"] if value else COLOURS["masked"]
    top = max((float(v) for v in grid[i] if not isinstance(v, str)), default=0.0)  # the row's largest weight
    return _ramp(SEQUENTIAL, min(max(float(value) / top, 0.0), 1.0) if top > 0 else 0.0)


def _diverging(value, spread):
    if not isinstance(value, float):
        return COLOURS["nan"]
    return _ramp(DIVERGING, 0.5 + 0.5 * value / spread if spread else 0.5)


def _ramp(stops, level):
    """The colour at `level` (0 to 1) along `stops`, interpolated in RGB."""
    position = level * (len(stops) - 1)
    low = min(int(position), len(stops) - 2)
    a, b = (tuple(int(stops[k][n:n + 2], 16) for n in (1, 3, 5)) for k in (low, low + 1))
    return "#" + "".join(f"{round(x + (y - x) * (position - low)):02x}" for x, y in zip(a, b))


def _minus(got, want):
    """got − want of two picture entries, or "nan" where either is not a number."""
    if isinstance(got, str) or isinstance(want, str):
        return "nan" if got != want else 0.0
    return float(got) - float(want)


def _differing(picture):
    """The (i, j) where the student's entry is not the expected one (pictures are rounded: a weight
    differs when it is off by more than the rounding)."""
    found = set()
    for i, (want_row, got_row) in enumerate(zip(picture["expected"], picture["got"])):
        for j, (want, got) in enumerate(zip(want_row, got_row)):
            if isinstance(got, str) or isinstance(want, str):
                differs = got != want
            else:
                differs = abs(float(got) - float(want)) > 5e-3
            if differs:
                found.add((i, j))
    return found
