import json, glob, os
rows=[]
for d in sorted(glob.glob("m[0-9]*_*")):
    try:
        t=open(f"{d}/result.json").read(); t=t[:t.rindex("[exit code")]; j=json.loads(t)
    except Exception as e:
        print(d, "JSON ERR", e); continue
    ex=j["exercises"][0]
    diags=ex.get("diagnoses") or []
    ids=[x["id"] for x in diags]
    print(f"{d}: {ex['score']}/{ex['max_score']} passed={ex['passed']} err={ex.get('error')} diag={ids}")
    for x in diags:
        print("    msg:", x["message"][:400])
