import json, sys
for f in sys.argv[1:]:
    try: d = json.load(open(f))
    except Exception as x: print(f, "NO JSON", x); continue
    e = d['exercises'][0]
    print(f"== {f}: {d['score']}/{d['max_score']} error={e['error']}")
    for t in e['tests']:
        if t['status'] != 'passed' or 'whole_matrix' in t['name']:
            print(f"  {t['name']}: {t['status']} {t['score']}/{t['max_score']} :: {(t['message'] or '')[:600]}")
