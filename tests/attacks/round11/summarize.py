#!/usr/bin/env python3
"""Summarize run.py's JSON lines (files given, or stdin): per attack, user and kind, each run's verdict."""
import json, sys, collections
rows = collections.OrderedDict()
for f in sys.argv[1:] or ["-"]:
    for line in (sys.stdin if f == "-" else open(f)):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        key = (r["attack"], r["who"], r["kind"])
        if "error" in r and "points" not in r:
            desc = "ERROR " + r["error"][:80]
        else:
            desc = f"{r['points']} {r.get('tier')}"
            if r.get("ratio") is not None:
                desc += f" {r['ratio']:.2f}"
            for extra in ("memory", "complexity"):
                if r.get(extra):
                    desc += f" {r[extra]}"
            if r.get("failed"):
                desc += " FAILED:" + ",".join(t.split("[")[0] for t in r["failed"])
        rows.setdefault(key, []).append(desc)
for (attack, who, kind), descs in rows.items():
    print(f"{attack} {who:6} {kind:5} | " + " | ".join(descs))
