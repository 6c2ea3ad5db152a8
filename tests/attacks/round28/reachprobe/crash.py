import sys; sys.path.insert(0, '/work/scratch21')
from grader.sandbox import reach
from grader.sandbox.judge import python_text
cases = {
 "nul byte": b"x = 1\x00\n",
 "huge int": b"x = " + b"9" * 5000 + b"\n",
 "raw_unicode_escape surrogate": b"# coding: raw_unicode_escape\nx = 1  # \\ud800\n",
 "unicode_escape": b"# coding: unicode_escape\nx = '\\ud800'\n",
 "fstring nested deep": b"x = f'{" * 1 + b"1" + b"}'\n",
 "deep parens": b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n",
 "many elifs": b"if x: pass\n" + b"elif x: pass\n" * 50000,
 "long attr chain": b"x = a" + b".b" * 100000 + b"\n",
 "long binop": b"x = 1" + b" + 1" * 200000 + b"\n",
}
for k, v in cases.items():
    try:
        s = python_text(v)
    except Exception as e:
        print(f"{k:35s} -> decode {type(e).__name__}: {str(e)[:80]}"); continue
    try:
        r = reach.reaches(s)
    except BaseException as e:
        r = f"CRASH {type(e).__name__}: {str(e)[:100]}"
    try:
        compile(s, "x.py", "exec", dont_inherit=True); c = "compiles"
    except BaseException as e:
        c = f"compile {type(e).__name__}: {str(e)[:60]}"
    print(f"{k:35s} -> {str(r)[:120]} | {c}")
