import re, glob, os, json
rows = []
for n in (1, 8, 10):
    for f in sorted(glob.glob(f"exercise{n}/*.py")):
        name = os.path.basename(f)[:-3]
        head = open(f).read().split("\n")[:4]
        kind = re.search(r"kind=(\w+)", head[0]).group(1)
        desc = [h for h in head if h.startswith(("# method:", "# mistake:"))][0].split(":", 1)[1].strip()
        exp = [h.split(":", 1)[1].strip() for h in head if h.startswith("# expect:")]
        g = open(f"check/grades/ex{n}_{name}.txt").read()
        score = re.search(r"(\d+)/(\d+)", [l for l in g.splitlines() if f"exercise{n} " in l][0])
        got, tot = int(score.group(1)), int(score.group(2))
        # the report body after the path line
        body = g.split("\n", 3)[3] if got < tot else ""
        body = re.sub(r"\n\s*", " ", body.split("Total:")[0]).strip()
        if kind == "honest":
            verdict = "ok" if got == tot else "FALSE FAIL"
        else:
            if got == tot:
                verdict = "FALSE PASS"
            else:
                verdict = "ok" if any(re.search(e, body, re.I) for e in exp) else "misleading"
        rows.append(dict(n=n, name=name, kind=kind, desc=desc, expect=exp, got=got, tot=tot, verdict=verdict, body=body))
json.dump(rows, open("check/summary.json", "w"), indent=1)
for r in rows:
    print(f"{r['n']:>2} {r['name']:32} {r['kind']:6} {r['got']}/{r['tot']} {r['verdict']}")
