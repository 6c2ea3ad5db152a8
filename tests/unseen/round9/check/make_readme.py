rows = [l.rstrip("\n").split("|", 2) for l in open("/work/unseen9/check/table.txt")]
titles = {1: "projection", 2: "scoring", 3: "scaling", 4: "masking", 5: "softmax & SDPA", 6: "multi-head",
          7: "GQA", 8: "KV cache", 9: "head patterns", 10: "tiled attention"}
HEAD = open("/work/unseen9/check/readme_head.md").read()
TAIL = open("/work/unseen9/check/readme_tail.md").read()
lines = [HEAD.rstrip("\n")]
for n, name, desc in rows:
    esc = desc.replace("|", "\\|")
    lines.append(f"| {n} {titles[int(n)]} | `{name}.py` | {esc} |")
lines.append(TAIL)
open("/work/unseen9/README.md", "w").write("\n".join(lines))
