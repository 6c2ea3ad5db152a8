"""Report writers: one module per format (text, html, json_report, gradescope, junit; formats.py
lists those --format offers, class_page.py the class report), each reading the verdict or a saved
report checked by schema.py."""

import re

# a number in a message: cut out, what is left says the kind of problem (the text report and the page)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")

# what a spreadsheet may run as a formula at the start of a cell (OWASP's CSV injection advice)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value):
    """A CSV cell that a spreadsheet shows as text and never runs: one starting with = + - @, a tab or
    a carriage return (a student folder named `=cmd|...`, a roster's name, a message) gets a leading
    single quote; the csv module quotes separators and quotes."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
