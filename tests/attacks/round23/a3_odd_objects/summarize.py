import json, sys
text = open(sys.argv[1]).read()
code = text.rsplit("[exit code", 1)[-1].strip(" ]\n")
try:
    d = json.loads(text.rsplit("[exit code", 1)[0])
    e = d["exercises"][0]
    fails = sorted({(t.get("message") or "")[:120].replace("\n", " ") for t in e["tests"] if t["status"] != "passed"})
    print("score %s/%s exit %s | %s" % (e["score"], e["max_score"], code, " || ".join(fails[:2])))
except Exception as err:
    print("NO JSON REPORT exit %s: %r" % (code, text[-400:]))
