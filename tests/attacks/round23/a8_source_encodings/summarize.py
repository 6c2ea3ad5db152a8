import json, sys
text = open(sys.argv[1]).read()
code = text.rsplit("[exit code", 1)[-1].strip(" ]\n")
try:
    d = json.loads(text.rsplit("[exit code", 1)[0])
    e = d["exercises"][0]
    msgs = sorted({(t.get("message") or "")[:100] for t in e["tests"] if t["status"] not in ("passed", "skipped")})
    err = e.get("error")
    err = (err.get("message") if isinstance(err, dict) else err) or ""
    print("score %s/%s exit %s | %s | %s" % (e["score"], e["max_score"], code, " || ".join(msgs[:1]), err[:110]))
except Exception:
    print("NO JSON REPORT exit %s: %r" % (code, text[-300:]))
