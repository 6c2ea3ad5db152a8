"""The report formats `--format` offers, each rendered by its own module of grader/reports/."""

from grader.grading.settings import Policy
from grader.reports import gradescope, json_report, junit, student_view, text


def render_html(report, policy=Policy()):
    """The self-contained feedback page (grader/reports/html.py): scores, messages, the hint ladder's
    levels, heatmaps; the tier and hidden checks as the course's `policy` shows them (`student_view`)."""
    from grader.reports import html  # only for the page

    return html.render(student_view(report, policy).to_dict())


RENDERERS = {"text": text.render_text, "json": json_report.render, "gradescope": gradescope.render,
             "junit": junit.render, "html": render_html}
