import json, sys
text = sys.stdin.read()
try:
    d = json.loads(text.rsplit("[exit code", 1)[0])
except ValueError:
    print("NO JSON:", text[-300:]); sys.exit()
e = d["exercises"][0]; err = e.get("error")
msg = (err.get("message") if isinstance(err, dict) else err) or ""
print("score", e["score"], "/", e["max_score"], "containment", d.get("containment"), d.get("containment_layers"))
items = msg.split("RuntimeError: ", 1)[-1].split(" ")
print("reached :", " ".join(i for i in items if "=OK:" in i))
print("refused :", " ".join(i.split("=")[0] for i in items if "=no(" in i))
