"""Report writers: one module per format (text, html, json_report, gradescope, junit; formats.py
lists those --format offers, class_page.py the class report), each reading the verdict or a saved
report checked by schema.py."""

import re

# a number in a message: cut out, what is left says the kind of problem (the text report and the page)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")
