"""The feedback page: one self-contained HTML file per student (`--format html`, `batch --feedback`).

Readable offline and as an upload to an LMS: no JavaScript, no external stylesheet, font or image;
the pictures of a failing mask or attention-weight matrix are inline SVG heatmaps, the expected
matrix beside the student's, with the entries that differ outlined. Everything comes from the JSON
report (GradeReport.to_dict()), so a page can be made again later from a batch's grades/ folder.
Every piece of text is escaped: a student's printing or messages can never become markup.
"""

from html import escape

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
.legend { color: #555; font-size: .85rem; }
"""
COLOURS = {"attend": "#1f5fa8", "masked": "#e9e9ec", "nan": "#d62728", "differs": "#ff9f1c"}


def render(report, *, student=None, status=None, message=None):
    """The page for a JSON report (None: the student has no report; `status` and `message` say why)."""
    title = f"Lumen attention kit — feedback for {student}" if student else "Lumen attention kit — feedback"
    body = [f"<h1>{escape(title)}</h1>"]
    if report is None:
        body.append(f'<p class="meta">status: <strong>{escape(status or "not graded")}</strong></p>')
        body.append(f'<p class="message">{escape(message or "no report")}</p>')
    else:
        body += _summary(report)
        for exercise in report["exercises"]:
            body += _exercise(exercise)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def render_record(record):
    """The page of a batch record (grades/STUDENT.json)."""
    return render(record.get("report"), student=record["student"], status=record["status"],
                  message=record.get("message"))


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
        lines.append(f'<tr><td><a href="#{escape(exercise["id"])}">{escape(exercise["id"])}</a></td>'
                     f"<td>{escape(exercise['title'])}</td><td><code>{escape(exercise['file'])}</code></td>"
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
    for diagnosis in exercise.get("diagnoses", []):
        lines.append(f'<div class="diagnosis" data-diagnosis="{escape(diagnosis.get("id", ""))}">➜ '
                     f"{escape(diagnosis['message'])}</div>")
    drawn = _drawn(ran)
    for test in ran:
        if test["status"] == "passed":
            continue
        lines.append(f'<div class="test" data-status="{escape(test["status"])}">')
        lines.append(f"<h3>✗ {escape(test['name'])} — {_points(test['score'])} / {_points(test['max_score'])}</h3>")
        lines.append(f'<p class="message">{escape(test["message"])}</p>')
        if test.get("diagnosis"):
            lines.append(f'<p class="legend">shows: <code>{escape(test["diagnosis"])}</code></p>')
        if id(test) in drawn:
            lines += heatmaps(test["picture"])
        lines.append("</div>")
    if exercise.get("tier") and exercise["tier"].get("message"):
        lines.append(f"<p><strong>performance</strong>: {escape(exercise['tier']['message'])}</p>")
    if exercise.get("output"):
        lines += ["<p>your code printed:</p>", f"<pre>{escape(exercise['output'])}</pre>"]
    if passed:
        lines.append("<details><summary>checks passed</summary><ul>"
                     + "".join(f"<li>✓ {escape(test['name'])}</li>" for test in passed) + "</ul></details>")
    lines.append("</section>")
    return lines


def _drawn(tests):
    """The failed tests whose pictures the page shows: one per test function (its cases differ only
    in size), the first whose call was diagnosed (it shows the mistake), else the first."""
    chosen = {}
    for test in tests:
        if test.get("picture"):
            key = test["name"].split("[")[0]
            if key not in chosen or (test.get("diagnosis") and not chosen[key].get("diagnosis")):
                chosen[key] = test
    return {id(test) for test in chosen.values()}


def heatmaps(picture):
    """The expected matrix and the student's, side by side, as two inline SVGs of the same scale."""
    where = f" [{', '.join(map(str, picture['slice']))}]" if picture.get("slice") else ""
    rows, columns = picture["shape"]
    shown_rows, shown_columns = len(picture["expected"]), len(picture["expected"][0]) if picture["expected"] else 0
    legend = ("dark: may attend, light: masked" if picture["kind"] == "mask"
              else "darker: a larger weight (0 to 1)")
    titles = picture.get("titles")  # two matrices that are not expected and yours (a head, its cells)
    lines = ['<div class="heatmaps">']
    for side, caption in zip(("expected", "got"), titles or ("expected", "yours")):
        lines += [f'<figure data-side="{side}">', f"<figcaption>{escape(caption)}</figcaption>",
                  _svg(picture, side, caption), "</figure>"]
    lines.append("</div>")
    cut = (f"; the first {shown_rows} × {shown_columns} of {rows} × {columns}"
           if (rows, columns) != (shown_rows, shown_columns) else "")
    lines.append(f'<p class="legend">{escape(picture["rows"])} (rows) × {escape(picture["columns"])} (columns)'
                 f"{escape(where)}: {legend}; red: NaN or infinite"
                 f"{'' if titles else '; outlined in orange: where yours differs'}"
                 f"{cut}.</p>")
    return lines


def _svg(picture, side, caption):
    grid, other = picture[side], picture["got" if side == "expected" else "expected"]
    height, width = len(grid), len(grid[0]) if grid else 0
    smallest, largest, target = CELL
    cell = max(smallest, min(largest, target // max(height, width, 1)))
    cells = []
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            fill = _fill(picture["kind"], value)
            differs = side == "got" and not picture.get("titles") and _differs(value, other[i][j])
            stroke = f' stroke="{COLOURS["differs"]}" stroke-width="2"' if differs else ' stroke="#e4e4e8" stroke-width="1"'
            cells.append(f'<rect x="{j * cell}" y="{i * cell}" width="{cell}" height="{cell}" fill="{fill}"{stroke}>'
                         f"<title>[{i}, {j}] {escape(str(value))}</title></rect>")
    label = f"{caption}: {height} × {width} {picture['kind']} ({picture['rows']} × {picture['columns']})"
    return (f'<svg role="img" aria-label="{escape(label)}" '
            f'width="{width * cell}" height="{height * cell}" viewBox="0 0 {width * cell} {height * cell}">'
            + "".join(cells) + "</svg>")


def _fill(kind, value):
    if isinstance(value, str):  # "nan", "inf", "-inf"
        return COLOURS["nan"]
    if kind == "mask":
        return COLOURS["attend"] if value else COLOURS["masked"]
    level = min(max(float(value), 0.0), 1.0)  # white (0) to the mask's blue (1)
    red, green, blue = (round(255 + (target - 255) * level) for target in (0x1f, 0x5f, 0xa8))
    return f"#{red:02x}{green:02x}{blue:02x}"


def _differs(got, want):
    if isinstance(got, str) or isinstance(want, str):
        return got != want
    return abs(float(got) - float(want)) > 5e-3  # the pictures are rounded; a real difference shows
