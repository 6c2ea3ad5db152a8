"""class-report.html: what a class got wrong, on one self-contained page.

Drawn from the class summary (`grader.course.class_report.build`, the dict class-report.json holds):
no JavaScript, no external stylesheet, font or image, so it reads offline and as an LMS upload.
The charts are inline SVG, each with a text equivalent for screen readers (an aria-label that says
what the chart shows, and the table of its numbers). Every piece of text is escaped: what a
student's code printed, or their file held, can never become markup.
"""

from html import escape

from grader.grading.compare import plural

STYLE = """
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d1d1f;
       max-width: 64rem; margin: 1.5rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.25rem; margin-top: 2.2rem;
  border-bottom: 2px solid #e3e3e8; padding-bottom: .2rem; } h3 { font-size: 1.05rem; margin: 1rem 0 .3rem; }
.meta, .note { color: #555; } .note { font-size: .92rem; }
.wide { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .6rem 0; }
th, td { border-bottom: 1px solid #ddd; padding: .3rem .6rem; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .88rem; }
pre { background: #f4f4f6; padding: .6rem; white-space: pre-wrap; overflow-wrap: anywhere; margin: .4rem 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); gap: 1rem 1.5rem; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: .2rem; }
svg { display: block; width: 100%; height: auto; }
.card { border-left: 4px solid #1f5fa8; background: #f1f6fc; padding: .5rem .9rem; margin: 1rem 0; }
.recap { border-left-color: #17692c; background: #f0f8f2; }
.lead { border-left-color: #b36b00; background: #fdf7ee; }
.side { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: .8rem; }
.fixed { color: #17692c; } .new { color: #b3261e; }
pre.code { white-space: pre; overflow-x: auto; overflow-wrap: normal; }
td code { overflow-wrap: anywhere; }
@media (max-width: 40rem) {  /* a phone: each table row becomes a card of "column: value" lines */
  .wide table, .wide thead, .wide tbody, .wide tr, .wide td { display: block; }
  .wide thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
  .wide tr { border-bottom: 1px solid #ddd; padding: .4rem 0; }
  .wide td { border: 0; padding: .1rem 0; text-align: left; white-space: normal; }
  .wide td.n { text-align: left; }
  .wide td::before { content: attr(data-label) ": "; font-weight: 600; color: #555; }
}
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
           clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
"""
BAR, MUTED, NOW = "#1f5fa8", "#b8c4d6", "#b3261e"
BIN_NAMES = [f"{10 * i}–{10 * (i + 1)}%" for i in range(10)]


def render(summary, title="Class report"):
    """The page of a class summary."""
    body = [f"<h1>{escape(title)}</h1>", _meta(summary), _recap(summary), _exercises(summary),
            _tests(summary), _misconceptions(summary)]
    if "trend" in summary:
        body.append(_trend(summary["trend"]))
    body += [_stuck(summary), _held(summary), _errors(summary), _tiers(summary)]
    if "similarity" in summary:
        body.append(_similarity(summary["similarity"]))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(part for part in body if part) + "\n</body>\n</html>\n")


def _pct(value):
    return "–" if value is None else f"{100 * value:.0f}%"


def _num(value):
    return "–" if value is None else f"{value:g}"


def _table(headers, rows, numeric=(), caption=None, hidden=False):
    """A table (in a scrolling box on a narrow screen); `numeric`: the columns aligned right."""
    head = "".join(f"<th scope=\"col\">{escape(h)}</th>" for h in headers)
    cells = [(' class="n"' if i in numeric else "") + f' data-label="{escape(h)}"' for i, h in enumerate(headers)]
    body = "".join("<tr>" + "".join(f"<td{cells[i]}>{cell}</td>" for i, cell in enumerate(row)) + "</tr>" for row in rows)
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    table = f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="sr-only">{table}</div>' if hidden else f'<div class="wide">{table}</div>'


def _meta(summary):
    students = summary["students"]
    parts = [f"{students['graded']} students graded"]
    if students["rostered"] is not None:
        parts.append(f"{students['rostered']} on the roster")
    if students["never_submitted"]:
        parts.append(f"{len(students['never_submitted'])} never submitted")
    if students["no_files"]:
        parts.append(f"{len(students['no_files'])} handed in no exercise file")
    if students.get("not_on_roster"):
        parts.append(f"{students['not_on_roster']} folder(s) not on the roster left out")
    text = f'<p class="meta">{escape("; ".join(parts))}. Students are shown by {escape(summary["shown_as"])}.</p>'
    if students["never_submitted"]:
        text += (f'<p class="note">Never submitted: {escape(", ".join(students["never_submitted"]))}.'
                 + (f' No exercise file: {escape(", ".join(students["no_files"]))}.' if students["no_files"] else "")
                 + "</p>")
    return text


def _recap(summary):
    if not summary["recap"]:
        return '<h2 id="recap">Lecture recap</h2><p>No misconception was diagnosed in this class.</p>'
    items = []
    for item in summary["recap"]:
        example = (f"<p>The shortest failing check seen:</p><pre>{escape(item['example'])}</pre>"
                   if item["example"] else "")
        items.append(f'<li class="card recap"><h3><code>{escape(item["id"])}</code> — would help '
                     f'{plural(item["students"], "student")}</h3>'
                     f'<p>{escape(item["cause"])}.</p><p>Reread: <em>{escape(item["section"])}</em></p>{example}</li>')
    count = len(items)  # the recap's few (round 70's P2: "three" whatever the count)
    return (f'<h2 id="recap">Lecture recap: {_COUNTS.get(count, count)} misconception{"s" * (count != 1)} to address</h2>'
            f'<ol style="padding-left:1.2rem">{"".join(items)}</ol>')


_COUNTS = {1: "one", 2: "two", 3: "three"}


def _histogram(exercise):
    """An SVG bar chart of an exercise's score distribution, labelled, and its table."""
    counts, width, height, left, bottom = exercise["histogram"], 300, 160, 8, 28
    top_count = max(counts) or 1
    bar = (width - 2 * left) / len(counts)
    shapes = []
    for i, count in enumerate(counts):
        h = (height - bottom - 18) * count / top_count
        x, y = left + i * bar, height - bottom - h
        shapes.append(f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" height="{h:.1f}" fill="{BAR}"/>')
        if count:
            shapes.append(f'<text x="{x + bar / 2:.1f}" y="{y - 4:.1f}" font-size="12" text-anchor="middle">{count}</text>')
    base = height - bottom
    shapes.append(f'<line x1="{left}" y1="{base}" x2="{width - left}" y2="{base}" stroke="#555"/>')
    for label, x in (("0", left), ("50%", width / 2), ("100%", width - left)):
        anchor = "start" if x == left else "end" if x == width - left else "middle"
        shapes.append(f'<text x="{x}" y="{base + 18}" font-size="12" text-anchor="{anchor}">{label}</text>')
    described = "; ".join(f"{name}: {count}" for name, count in zip(BIN_NAMES, counts) if count)
    label = (f"{exercise['id']}: scores of {exercise['submitted']} students as a share of {_num(exercise['max_score'])} "
             f"points; {described or 'none'}")
    svg = (f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">'
           + "".join(shapes) + "</svg>")
    table = _table(["score", "students"], [(name, count) for name, count in zip(BIN_NAMES, counts)], numeric=(1,),
                   caption=f"{exercise['id']}: students per score band", hidden=True)
    caption = (f"{escape(exercise['id'])}: {escape(exercise['title'])}<br><span class=\"note\">pass rate "
               f"{_pct(exercise['pass_rate'])}, median {_num(exercise['median'])} of {_num(exercise['max_score'])}</span>")
    return f"<figure><figcaption>{caption}</figcaption>{svg}{table}</figure>"


def _exercises(summary):
    rows = [(escape(e["id"]), escape(e["title"]), e["submitted"], e["untouched"], e["missing_file"],
             _pct(e["pass_rate"]), _num(e["median"]), _num(e["max_score"])) for e in summary["exercises"]]
    return ('<h2 id="exercises">Exercises</h2><p class="note">Submitted: the students who handed the exercise in '
            'with work of their own; the stub as released: handed in untouched (every test met its '
            'NotImplementedError), counted apart, as no file is.</p>'
            + _table(["exercise", "title", "submitted", "stub as released", "no file", "pass rate", "median",
                      "points"], rows, numeric=(2, 3, 4, 5, 6, 7))
            + '<h3>Score distribution per exercise</h3><p class="note">Students per band of the exercise\'s points, '
              'among those who handed the exercise in.</p>'
            + '<div class="charts">' + "".join(_histogram(e) for e in summary["exercises"]) + "</div>")


def _tests(summary):
    parts = ['<h2 id="tests">Tests failed most</h2><p class="note">Per exercise, the test functions most students '
             'failed (all their cases together), and the section the diagnosis behind them points to.</p>']
    for e in summary["exercises"]:
        rows = [(f"<code>{escape(t['test'])}</code>", t["students"], escape(t["section"])) for t in e["tests_failed_most"]]
        if rows:
            parts.append(f"<h3>{escape(e['id'])}: {escape(e['title'])}</h3>"
                         + _table(["test", "students failing", "chapter section"], rows, numeric=(1,)))
    return "".join(parts) if len(parts) > 1 else parts[0] + "<p>No test failed.</p>"


def _misconceptions(summary):
    ranked = summary["misconceptions"]
    if not ranked:
        return '<h2 id="misconceptions">Misconceptions</h2><p>None was diagnosed.</p>'
    rows = [(i, f"<code>{escape(m['id'])}</code>", m["students"], _pct(m["share"]),
             escape(", ".join(f"{e['id']} ({e['students']})" for e in m["exercises"])), escape(m["cause"]))
            for i, m in enumerate(ranked, start=1)]
    parts = ['<h2 id="misconceptions">Misconceptions, by how many students show them</h2>',
             '<p class="note">Share: of the students graded. Exercises: where it was diagnosed (students).</p>',
             _table(["rank", "misconception", "students", "share", "exercises", "cause"], rows, numeric=(0, 2, 3))]
    for m in ranked:
        if m["example"] is None and m is not ranked[0]:
            continue
        example = m["example"]
        shown = (f'<p>An anonymised example ({escape(example["exercise"])}: the lines that differ from the stub, '
                 f'comments, docstrings and names removed{", cut" if example["cut"] else ""}):</p>'
                 f'<pre class="code">{escape(chr(10).join(example["lines"]))}</pre>' if example else
                 '<p class="note">No example: give --submissions (the class folder) and --stubs to show one.</p>')
        call = f"<p>The shortest failing check seen:</p><pre>{escape(m['failing_call'])}</pre>" if m["failing_call"] else ""
        parts.append(f'<div class="card"><h3><code>{escape(m["id"])}</code>: {plural(m["students"], "student")} '
                     f'({_pct(m["share"])})</h3><p>Why it fails: {escape(m["cause"])}.</p>'
                     f'<p>Reread: <em>{escape(m["section"])}</em></p>{shown}{call}</div>')
    return "".join(parts)


def _trend(trend):
    rows = trend["misconceptions"]
    shown = rows[:10]
    label = "; ".join(f"{r['id']}: {r['before']} before, {r['now']} now" for r in shown)
    width, line = 300, 44
    top = max((max(r["before"], r["now"]) for r in shown), default=1) or 1
    shapes = []
    for i, r in enumerate(shown):
        y = i * line
        shapes.append(f'<text x="0" y="{y + 12}" font-size="12" font-family="monospace">{escape(r["id"])}</text>')
        for j, (count, colour) in enumerate(((r["before"], MUTED), (r["now"], NOW))):
            w = (width - 40) * count / top
            shapes.append(f'<rect x="0" y="{y + 16 + 12 * j}" width="{w:.1f}" height="10" fill="{colour}"/>'
                          f'<text x="{w + 4:.1f}" y="{y + 25 + 12 * j}" font-size="11">{count}</text>')
    svg = (f'<svg viewBox="0 0 {width} {max(line, line * len(shown))}" role="img" aria-label="{escape(label)}" '
           'style="max-width:24rem">' + "".join(shapes) + "</svg>")
    table = _table(["misconception", "before", "now", "fixed", "kept", "new"],
                   [(f"<code>{escape(r['id'])}</code>", r["before"], r["now"],
                     f'<span class="fixed">{r["fixed"]}</span>', r["kept"], f'<span class="new">{r["new"]}</span>')
                    for r in rows], numeric=(1, 2, 3, 4, 5))
    return (f'<h2 id="trend">Since the previous grading</h2><p class="note">Over the {trend["students_in_both"]} '
            'students graded both times: fixed (shown before, not now), kept, new (shown now only). The chart '
            f'shows the ten most shown now: <span style="color:#8a97ab">before in grey</span>, '
            f'<span class="new">now in red</span>.</p>{svg}{table}')


def _stuck(summary):
    stuck = summary["stuck"]
    if not stuck:
        return '<h2 id="stuck">Students who are stuck</h2><p>None.</p>'
    rows = [(escape(s["student"]), escape("; ".join(s["reasons"]))) for s in stuck]
    return ('<h2 id="stuck">Students who are stuck</h2><p class="note">0 points on the first exercises (or none of '
            'them started), or the same misconception on several exercises.</p>' + _table(["student", "why"], rows))


def _held(summary):
    held = summary["held_for_review"]
    if not held:
        return '<h2 id="held">Held for your review</h2><p>None.</p>'
    rows = [(escape(h["student"]), escape(h["exercise"]), escape(h["where"])) for h in held]
    return ('<h2 id="held">Held for your review</h2><p class="note">Code that reaches into the process that runs it, '
            'where it could change what the grader measures: the kit scored these exercises 0. Read the lines named '
            'and decide (docs/security.md).</p>' + _table(["student", "exercise", "lines"], rows))


def _errors(summary):
    levels = ", ".join(f"{escape(level)}: {n}" for level, n in summary["containment"].items()) or "–"
    text = f'<h2 id="errors">Containment and grading errors</h2><p>Containment level of the gradings: {levels}.'
    if "process" in summary["containment"]:
        text += (" <strong>Some students were graded at level <code>process</code>: their code could reach other "
                 "students' files (see docs/security.md).</strong>")
    text += "</p>"
    if not summary["errors"]:
        return text + "<p>No grading failed.</p>"
    return text + _table(["student", "reason"], [(escape(e["student"]), escape(e["reason"])) for e in summary["errors"]])


def _tiers(summary):
    rows = [(escape(e["id"]), escape(tier), n) for e in summary["exercises"] for tier, n in e["tiers"].items()]
    if not rows:
        return '<h2 id="tiers">Performance tiers</h2><p>Not timed in this grading.</p>'
    return '<h2 id="tiers">Performance tiers</h2>' + _table(["exercise", "tier", "students"], rows, numeric=(2,))


def _similarity(leads):
    parts = ['<h2 id="similarity">Similarity leads (for review, not verdicts)</h2>',
             '<p class="note">Pairs whose own code (beyond the stub and what many in the class wrote alike) is '
             'unusually alike, and pairs sharing rare misconceptions. Similar code has innocent causes: look at '
             'the evidence before drawing any conclusion. Shown only here, never in a student\'s page or the '
             'gradebook.</p>']
    if leads["code"] is None:
        parts.append(f'<p class="note">{escape(leads["code_note"])}.</p>')
    elif not leads["code"]:
        parts.append("<p>No pair of files is unusually alike.</p>")
    for lead in leads["code"] or []:
        evidence = lead["evidence"]
        sides = "".join(f'<div><strong>{escape(student)}</strong><pre class="code">{escape(chr(10).join(lines))}</pre></div>'
                        for student, lines in zip(lead["students"], evidence["lines"]))
        parts.append(f'<div class="card lead"><h3>{escape(" and ".join(lead["students"]))}: '
                     f'{100 * lead["similarity"]:.0f}% of their own code in common ({lead["tokens"]} tokens)</h3>'
                     f'<p>Most in {escape(evidence["exercise"])}; the lines they share:</p><div class="side">{sides}</div></div>')
    if leads["misconceptions"]:
        rows = [(escape(" and ".join(p["students"])),
                 escape(", ".join(f"{key} ({p['class_count'][key]} in the class)" for key in p["shared"])))
                for p in leads["misconceptions"]]
        parts.append("<h3>Pairs sharing rare misconceptions</h3>" + _table(["students", "rare misconceptions"], rows))
    return "".join(parts)
