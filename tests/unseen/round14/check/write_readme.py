import json
rows = json.load(open("check/summary.json"))
notes = {
 "wrong_blockstats_nan": "FALSE PASS. Written as an honest 'merge block-local partial softmaxes' online_softmax; my own float64 check found it wrong: `online_softmax(torch.tensor([[-100., -inf, -99.]]), 1)` gives `[nan, nan, nan]` (float32: e^(0-(-100)) = inf, times the empty block's sum 0 = NaN); in float64 the same happens with -1e4 entries. The docstring allows entries -inf and ±1e4 in the same row, but no grader test combines an all -inf block with a running max below about -88 (float32) / -709 (float64). The corrected twin, honest_blockstats.py, guards the empty block and passes both my check and the grader.",
 "wrong_clamp_eps": "FALSE PASS. `online_softmax(torch.full((1, 4), -inf, dtype=torch.float16), 2)` gives NaN (1e-12 underflows to 0 in float16, 0/0). The docstring promises zeros for an entirely -inf row and float16 support; the grader evidently never feeds an all -inf row in float16 (bfloat16 has float32's range so it is fine there, float32 too).",
 "wrong_tiled_clamp_eps": "FALSE PASS. Same mistake in tiled_attention: causal with L_q > L_k in float16 gives NaN rows for the blind queries (`tiled_attention(q (1,5,4) fp16, k (1,3,4), v, 2, causal=True)` -> first two rows NaN). Float32 forward and gradients are fine (clamp's gradient is 0 below the floor), so only a float16 blind-query test would catch it; the suite has none.",
 "wrong_tiled_merge_nan": "Caught (49/51) but the diagnosis is MISLEADING: the hint says the running max 'starts above very negative scores' (the m = 0 initialisation misconception) and the ✗ line says 'e^x overflowed: shift every exponent by the running max, e^(s - m), never e^s'. My file starts m at -inf and does shift every exponent; the actual mistake is the e^(0 - m_new) factor of a fully masked block (inf·0). The NaN itself is reported correctly.",
 "wrong_len_nonzero": "Caught. The ✗ line test_kvcache_len_counts_tokens_whatever_their_values names the mistake exactly ('count the tokens update appended (keep a counter), not the non-zero slots'); the ➜ hint headline talks about reset still counting the old sequence, which is a consequence of the same mistake (storage not zeroed on reset), so slightly indirect but not wrong.",
 "wrong_neg_big_init": "Caught (49/51), but not the way I intended: torch.full(..., -1e30, dtype=float16) raises 'value cannot be converted to type c10::Half without overflow', and the report is only that raw error (no ➜ hint) pointing at the exact line in online_softmax. Good enough for a student to find it; my header's expected NaN never happens because the crash comes first.",
 "wrong_online_nan_row": "Caught, hint correct ('a query that has seen no finite score yet'). Small wording slip in the ✗ line: it says 'a row with no finite score must give zeros' about row [0, 1], whose later entries are finite (its picture shows finite expected weights); the NaN there comes from a leading all -inf block, which the hint describes correctly.",
 "wrong_storage_no_dtype": "Caught: names the float32 storage and the missing dtype= exactly.",
 "wrong_storage_no_device": "Caught on a CPU-only run: the grader simulates a GPU placement and reports the CPU-made storage line exactly.",
 "wrong_arange_no_device": "Caught on a CPU-only run: the CPU-made arange line is quoted exactly.",
 "wrong_stores_blocks": "Caught: 'holds the whole matrix in pieces ... grows like L^1.7' (my own check only looks at the largest single tensor and missed it).",
 "wrong_query_blocks_only": "Caught: 'read 512 values at once ... some of its work reads all the keys at once' (my own check missed it: its largest tensor is (block, L_k)).",
 "wrong_three_products": "Caught: 'ran 3 matrix products'. My value check cannot see it (values right).",
 "wrong_detach": "Caught via the gradient test; values right.",
 "honest_blockstats": "BORDERLINE honest: block statistics computed for all blocks at once (each reduction over block_size entries) then combined block by block with the rescale. Full marks; a stricter reading of 'first pass, block by block' might count this as a rule break (then it would be a false pass), I consider it honest.",
 "honest_two_pass_recompute": "BORDERLINE honest: exact, never more than one (L_q, block_size) score block alive, reads K/V block_size keys at a time, but o is accumulated in a second pass with the final m, l rather than rescaled on the fly. Full marks.",
 "honest_detached_max": "Uses .detach() on the running max (FlashAttention practice; ex10's docstring does not forbid it and the gradients are exactly the chapter's). Full marks — no false fail.",
 "honest_checkpoint": "torch.utils.checkpoint inside the sandbox worked; full marks.",
 "honest_empty_zero_reset": "torch.empty storage + in-place zero_ in reset (allocates nothing): full marks, no false 'reset allocates' flag.",
 "honest_interleaved_storage": "Returned keys/values are strided (non-contiguous) views of one (B,H,max_len,2,d) storage: accepted as views.",
 "honest_temp_cache": "cache=None goes through a throw-away KVCache: accepted.",
}
out = ["# unseen23 — independent student files for exercises 1, 8 and 10", "",
"Written without reading the grader, tests, solutions or docs; only the chapter, the stubs in /work/main/exercises and the README's student part.",
"Every file was checked against my own float64 reference (`check/check.py`: several shapes, causal and not, L_q <,=,> L_k, odd lengths, block_size 1 / 2 / 3 / 4 / 16 / 100, -inf entries, all -inf rows, ±1e4 and all-far-below-0 rows, float64/32/16/bf16, gradients vs whole-matrix attention, largest-tensor and view/storage checks) and then graded alone with",
"`lumen-grade exerciseN --submission /tmp/unseen23/<ex>_<name> --no-perf` (CPU, seed 0; GPU checks skipped by the grader; no device machine was lent to this task). Raw reports: `check/grades/`.",
"", "Verdicts: honest file at full marks = ok, honest file losing points = FALSE FAIL; wrong file losing points with a report that names the mistake = ok (my `# expect:` regexes matched), wrong file at full marks = FALSE PASS; caught but the report names another mistake = misleading.", "",
"## Summary", "", "| ex | file | kind | score | verdict |", "|---|---|---|---|---|"]
over = {"wrong_tiled_merge_nan": "misleading (hint)"}
for r in rows:
    v = over.get(r["name"], r["verdict"])
    out.append(f"| {r['n']} | {r['name']}.py | {r['kind']} | {r['got']}/{r['tot']} | {v} |")
from collections import Counter
c = Counter((r["kind"], over.get(r["name"], r["verdict"])) for r in rows)
out += ["", "Totals: " + ", ".join(f"{k[0]} {k[1]}: {n}" for k, n in sorted(c.items())), "",
"**Findings.** No false fail among %d honest files. Three FALSE PASSES, all in exercise 10 and all the same gap: the suite has no test for the *zero-output promise in extreme corners* — an all -inf row / blind query in float16, and an all -inf block after a running max below about -88 (float32) / -709 (float64) — so NaN-producing guards (`l.clamp_min(1e-12)`, block-merge factors e^(0 - m)) pass. Suggested tests: online_softmax with an entirely -inf float16 row; tiled_attention causal L_q > L_k in float16; online_softmax on a row like [-100, -inf, -99] (float32) / [-1e4, -inf, -1e4+1] (float64) with block_size 1. One misleading diagnosis (wrong_tiled_merge_nan: blamed on the m = 0 initialisation / unshifted e^s)." % sum(r["kind"] == "honest" for r in rows), ""]
out += ["## Per file", ""]
for r in rows:
    v = over.get(r["name"], r["verdict"])
    out.append(f"### exercise{r['n']}/{r['name']}.py — {r['kind']}, {r['got']}/{r['tot']}, {v}")
    out.append(("- method: " if r["kind"] == "honest" else "- mistake: ") + r["desc"])
    if r["expect"]:
        out.append("- expect: `" + "` / `".join(r["expect"]) + "`")
    if r["body"]:
        b = r["body"]
        out.append("- report (trimmed): " + (b[:900] + " …" if len(b) > 900 else b))
    else:
        out.append("- report: full marks, no failing test")
    if r["name"] in notes:
        out.append("- judgement: " + notes[r["name"]])
    elif r["kind"] == "honest":
        out.append("- judgement: honest, full marks: ok.")
    else:
        out.append("- judgement: caught; the report names the mistake correctly.")
    out.append("")
out += ["## Files", "", "- `exercise1/`, `exercise8/`, `exercise10/`: the student files (headers: kind, method/mistake, expect).",
        "- `check/check.py`: my independent float64 checker (`python check/check.py exercise10/*.py`).",
        "- `check/grades/ex<N>_<name>.txt`: the grader's full text report per file; `check/summary.json`, `check/summarize.py`, `check/write_readme.py`: this table."]
open("README.md", "w").write("\n".join(out) + "\n")
