"""Write README.md from the files' headers (and, with --fails, the checks each wrong file fails)."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = "/work/main/.venv/bin/python"

out = subprocess.run([PY, str(ROOT / "check/check_corpus.py"), "-v"], capture_output=True, text=True).stdout
fails, cur = {}, None
for line in out.splitlines():
    m = re.match(r"^\S.*?\s(exercise\d+/\S+\.py)\s+\((\d+)/(\d+) checks failed", line)
    if m:
        cur = m.group(1)
        fails[cur] = (int(m.group(2)), int(m.group(3)), [])
    elif line.startswith("      - ") and cur:
        fails[cur][2].append(line[8:].split(":")[0])
summary = out.strip().splitlines()[-1]

rows, counts = [], {}
for n in range(1, 11):
    rows.append(f"\n### exercise{n}\n")
    for f in sorted((ROOT / f"exercise{n}").glob("*.py"), key=lambda p: (not p.name.startswith("honest"), p.name)):
        head = f.read_text().splitlines()[:3]
        kind = "honest" if f.name.startswith("honest") else "wrong"
        counts[kind] = counts.get(kind, 0) + 1
        desc = head[1].split(": ", 1)[1]
        rel = f"exercise{n}/{f.name}"
        nf, nc, names = fails.get(rel, (0, 0, []))
        tail = f"  *(fails {nf}/{nc} checks)*" if kind == "wrong" else ""
        rows.append(f"- `{rel}` — {desc}{tail}")

narrow = [(k, v) for k, v in sorted(fails.items()) if k.split("/")[1].startswith("wrong") and v[0] <= 2]
text = f"""# Round 7: an unseen corpus for the attention kit's autograder

Student submissions written from the chapter, the stubs, their notebooks and the student README only
(nothing of the grader, its tests, its solutions or other corpora was read). For each of the ten
exercises: 9 `wrong_*.py` files with exactly one realistic mistake and 2 `honest_*.py` files that are
correct but not written the obvious way: {counts.get('wrong', 0)} wrong + {counts.get('honest', 0)} honest = {sum(counts.values())} files.
Each file is the stub with every `raise NotImplementedError` filled in (docstrings, signatures and
all other stub lines kept), after a header:

```
# lumen-unseen: exercise=N kind=wrong|honest
# mistake: ... (wrong)  /  # method: ... (honest)
# ideal: ... (wrong only: the diagnosis a great TA would write)
# expect: <regex>   (one or more; Python, case-insensitive, against the grader's feedback)
# reject: <regex>   (zero or more: a diagnosis matching one names a wrong cause)
```

Honest files expect a pass line (`✓|pass|full marks|on par`) and reject `✗` and `➜`.
Ports of public code are marked in their mistake/method line: nanoGPT (exercise 6), Hugging Face
(exercise 4 finfo.min fill, exercise 5 float32 upcast, exercise 7 repeat_kv, exercise 8 DynamicCache),
Meta Llama (exercise 7 repeat_kv layout), TransformerLens / ARENA (exercise 7 IGNORE, exercise 9
induction detector and head loops), lucidrains and OpenAI improved-diffusion (exercise 3), timm and
GPT-NeoX (exercise 6), the Annotated Transformer (exercise 5).

## Running the checks

```bash
cd /work/corpus7/round7
/work/main/.venv/bin/python check/check_corpus.py          # all 110 files, about 15 s on 2 cores
/work/main/.venv/bin/python check/check_corpus.py 5 7      # some exercises
/work/main/.venv/bin/python check/check_corpus.py -v exercise8/wrong_update_detaches.py   # every failed check
```

It prints one line per file (`ok`, `HONEST FAILS`, `WRONG PASSES` or `BAD HEADER`) and exits 0 when
every honest file passes every check, every wrong file fails at least one, and every header is
well formed with each ideal matching its own expect regexes and none of its reject regexes.
Last run: `{summary}`.

- `check/ref.py`: an independent float64 reference of every stub function and class (einsum,
  index_select, explicit masks; no code shared with the corpus).
- `check/check_corpus.py`: per exercise, values against the reference on several sizes (L_q != L_k,
  d_k not a perfect square, H != H_kv != 1, B != H, L = 1, unbatched/3-D/4-D), gradients against
  the reference's autograd (finite for fully masked rows), float32/float64 values and
  float16/bfloat16 dtype kept (on the CPU), inputs unchanged (values, shape, in-place version
  counter), the device kept (the `meta` device stands in for a GPU: a tensor made without
  `device=` cannot meet it), documented boundaries and ValueErrors, and the rules: no torch softmax
  or fused attention in exercises 5 and 10 (patched to raise while the student code runs), no
  tensor of (L_q, L_k) elements in `tiled_attention` (a TorchDispatchMode records the largest
  tensor), the KV cache's storage allocated once and kept by `reset`, state dicts that load strictly.
  It also checks each file's structure: every stub line kept, in order, no NotImplementedError.
- `src/build.py` + `src/exN.py`: the files are generated from the stubs and these specs
  (`python src/build.py` rewrites `exerciseN/`); `src/make_readme.py` rewrites this README.

Wrong files that fail only one or two checks (the narrow ones, worth a look when judging the grader):
""" + "\n".join(f"- `{k}`: {', '.join(v[2])}" for k, v in narrow) + """

## Files
""" + "\n".join(rows) + "\n"
(ROOT / "README.md").write_text(text)
print(summary)
