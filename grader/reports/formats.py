"""The report formats `--format` offers, each rendered by its own module of grader/reports/."""

from grader.reports import gradescope, json_report, junit, text


def render_html(report):
    """The self-contained feedback page (grader/reports/html.py): scores, messages, diagnoses, heatmaps."""
    from grader.reports import html  # only for the page

    return html.render(report.to_dict())


RENDERERS = {"text": text.render_text, "json": json_report.render, "gradescope": gradescope.render,
             "junit": junit.render, "html": render_html}
