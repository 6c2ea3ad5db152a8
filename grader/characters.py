"""The characters a student's text may not carry into a report, for the judge (`judge.printable`) and
the verdict (`results.clean_text`) alike: one list, so that what one lets through the other does too.

C0 and C1 controls (but tab and newline), DEL, zero-width and bidirectional formatting characters
(U+061C among them: round 27) that can redraw a terminal line or hide text, line and paragraph
separators (U+2028, U+2029: round 24), and lone surrogates (a str can hold '\\ud800', which no UTF-8
encoder, JSON file or XML document accepts: round 27's a14).
"""

import re

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff\ud800-\udfff]")
REPLACEMENT = "\ufffd"  # what each becomes
