# exception text, type name and function name holding characters XML 1.0 forbids (U+FFFE, U+FFFF, NUL,
# a lone surrogate, ESC) and markup: the JUnit report must still be well-formed XML
import math
E = type("Bad\ufffe\uffff]]>", (Exception,), {})

def scale_scores(scores, d_k):
    raise E("bad \uffff \ufffe \x00 \x1b[2J \ud800 ]]><failure message='x'/> value")

def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
