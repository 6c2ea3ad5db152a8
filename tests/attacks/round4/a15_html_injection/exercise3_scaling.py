# Attack: markup in everything a student controls that reaches the HTML pages (the feedback page,
# the class report): printed output, exception messages, a docstring, names.  Any of it unescaped
# is script in the instructor's browser.
import math
print('<script>window.R4XSS=1</script><img src=x onerror="R4XSS()">')
class R4Err(Exception):
    pass
def scale_scores(scores, d_k):
    """<script>R4DOC()</script>"""
    raise R4Err('</pre><script>R4MSG()</script><svg onload=R4SVG()>')
def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / q.size(-1)  # the misconception: divided by d_k
