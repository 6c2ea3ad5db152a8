"""a02: make the report unwritable/unparseable: exception messages, names and printed text holding
lone surrogates, U+FFFE/U+FFFF, XML-forbidden characters and NUL-ish codepoints that printable() misses."""
import math

BAD = "\udcff\ud800 \ufffe\uffff \U0010ffff \u2028\u2029 \x85 \ue000 ]]> </failure>"

class Weird(Exception):
    pass


def scale_scores(scores, d_k):
    print("PRINTED" + BAD)
    raise Weird(BAD * 3)

def scaled_scores(q, k):
    raise ValueError(BAD)
