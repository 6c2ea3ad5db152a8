# a06: exercise files whose bytes are odd -- latin-1 with a coding line, a NUL, invalid UTF-8,
# 200 000 nested brackets, a UTF-8 BOM (what Windows Notepad writes), CR-only line ends, an encoded
# surrogate -- each must be graded or be a row with a one-line reason, never a grader traceback;
# and honest code must earn its points (the BOM and CR copies hold the same correct code).
import os
ok = (b"import math\ndef scale_scores(s, d_k):\n    return s / math.sqrt(d_k)\ndef scaled_scores(q, k):\n"
      b"    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n")
files = {"latin1": b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + ok, "nullbyte": ok + b"\x00\n",
         "badutf8": b"# \xff\xfe bad\n" + ok, "deepnest": b"x = " + b"(" * 200000 + b")" * 200000 + b"\n" + ok,
         "bom": b"\xef\xbb\xbf" + ok, "crlf_cr": ok.replace(b"\n", b"\r"), "surrogate": b"s = '\xed\xa0\x80'\n" + ok}
for name, data in files.items():
    os.makedirs(f"class/{name}", exist_ok=True)
    open(f"class/{name}/exercise3_scaling.py", "wb").write(data)
