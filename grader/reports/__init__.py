"""Report writers: one module per format (text, HTML), each reading the verdict or a saved report."""

import re

# a number in a message: cut out, what is left says the kind of problem (the text report and the page)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")
