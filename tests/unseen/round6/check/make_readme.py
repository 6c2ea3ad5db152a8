"""Write ../README.md from the corpus files' own headers."""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def key(p):
    return (int(re.search(r"exercise(\d+)", p).group(1)), not os.path.basename(p).startswith("wrong_"), p)


lines = ["# Unseen corpus, round 6", "",
         "Student submissions for the ten attention exercises, written from the chapter and the stubs only.",
         "Each file is a complete student file (every `raise NotImplementedError` of the stub filled in, docstrings",
         "and signatures kept). `wrong_*` files hold exactly one realistic mistake; `honest_*` files are correct",
         "but written differently from the obvious solution.", "",
         "## How to check", "",
         "```",
         "cd /work/corpus6/round6/check",
         "/work/main/.venv/bin/python check_corpus.py      # every honest file passes all checks, every wrong file fails >= 1 (listed)",
         "/work/main/.venv/bin/python check_headers.py     # headers well formed; each ideal matches its expect regexes and no reject regex",
         "```", "",
         "- `check/ref.py`: an independent float64 reference of every stub function, from the chapter's maths.",
         "- `check/check_corpus.py` (+ `check/checks_4_10.py`): forward values on several sizes (L_q != L_k, odd head",
         "  counts, L = 1, batch/head dims), gradients against the reference, dtype kept (float32, bfloat16, float16 on the CPU), inputs",
         "  unchanged, device kept (the `meta` device stands in for a GPU: a tensor made on the CPU without `device=`",
         "  fails there as it would on CUDA), documented boundaries (fully masked rows, max_len reached, thresholds,",
         "  blocks that do not divide L, ValueErrors), module structure / state-dict keys, the KV cache's storage",
         "  allocated once, and the largest tensor of `tiled_attention` (a TorchDispatchMode). Torch softmax and",
         "  fused attention are patched to raise while exercises 5 and 10 run. Optional arguments: path substrings.",
         "- `check/build_corpus.py` rebuilds every corpus file from the stubs and `check/specs/spec_exN.py`",
         "  (the bodies and headers); `check/make_readme.py` rewrites this file. Both are optional tooling.", "",
         "Counts (wrong/honest): " + ", ".join(
             f"ex{i} {len(glob.glob(os.path.join(ROOT, f'exercise{i}', 'wrong_*.py')))}/"
             f"{len(glob.glob(os.path.join(ROOT, f'exercise{i}', 'honest_*.py')))}" for i in range(1, 11)) + ".", "",
         "## Files", ""]
cur = None
for p in sorted(glob.glob(os.path.join(ROOT, "exercise*", "*.py")), key=key):
    ex = key(p)[0]
    if ex != cur:
        lines += ["", f"### exercise {ex}", ""] if cur is not None else [f"### exercise {ex}", ""]
        cur = ex
    head = open(p).read().split("\n")[:3]
    what = next(l for l in head if l.startswith(("# mistake:", "# method:")))
    tag, text = what[2:].split(":", 1)
    lines.append(f"- `{os.path.relpath(p, ROOT)}` — {tag}: {text.strip()}")
open(os.path.join(ROOT, "README.md"), "w").write("\n".join(lines) + "\n")
print("README.md written")
