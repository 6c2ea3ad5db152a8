import json, sys, re
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
found = []
def walk(o):
    if isinstance(o, dict):
        if 'tier' in o and isinstance(o['tier'], dict):
            t = o['tier']; found.append((o.get('id') or o.get('exercise'), t.get('id'), t.get('ratio'), t.get('message','')[:160]))
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(d)
for f in found: print(f)
for m in re.finditer(r'"name": "performance tier"[^}]*', s): print(m.group(0)[:300])
