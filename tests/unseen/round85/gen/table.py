#!/usr/bin/env python3
"""Build the verdict table of tester-report.md from make.py's cases, the result files and the
verdicts below (decided by reading each result.txt)."""
import os, re, sys
sys.path.insert(0, os.path.dirname(__file__))
import make

ROOT = make.ROOT
NOT_RIGHT = {
    "m04_e1_split_dim1": ("VAGUE", "no diagnosis: only 'not enough values to unpack (expected 3, got 2)' at line 50"),
    "m16_e3_double_scale": ("VAGUE", "'You divided the scores by d_k itself, the variance…' — right effect, but the code divides by √d_k twice; the named misconception (variance vs std) is not the student's and the fix 'divide by √d_k, not d_k' points at scale_scores, which is already right"),
    "m36_e5_weights_T_at_v": ("VAGUE", "no diagnosis: raw matmul shape errors and 'output … is wrong'"),
    "m60_e8_past_after_update": ("VAGUE", "no diagnosis: RuntimeErrors raised inside the GIVEN scaled_dot_product_attention (line 48/52)"),
    "m73_e10_ff_cost_8": ("WRONG", "'you counted multiply-adds … Yours comes out at half the chapter's count, in every term' — only feed_forward is off (its own smallest example shows core 4, projections 8 right); the code does use 2 FLOPs/MAC"),
    "m84_e8_len_counts_nonzero": ("WRONG", "➜ 'Your reset leaves the count of cached tokens as it was' / fix 'set the number cached back to 0' — reset does set length = 0; the real cause (len counts non-zero rows) is only in a ✗ line"),
    "m88_e9_find_heads_seq_len_L": ("VAGUE", "no diagnosis; the student's own ValueError text ('seq_len = 8 repeated twice has 16') at line 87 is self-explaining"),
    "m89_e8_mask_square": ("VAGUE", "no diagnosis: shape RuntimeErrors inside the GIVEN attention"),
    "m90_e7_kv_view_nheads": ("VAGUE", "generic view-size explanation at line 117 ('is one of the sizes another tensor's?'); n_kv_heads vs n_heads not named"),
    "m91_e9_diag_dims_swapped": ("VAGUE", "'reads key i+1, above the diagonal' (right effect) but the fix says 'a positive offset is above the diagonal; key i-1 … is offset=-1' — the code already has offset=-1; the swapped dim1/dim2 is not named"),
    "d06_e7_repeat_and_float32": ("VAGUE", "repeat vs repeat_interleave diagnosed; float32 downcast not named (float64 test shown only as 'not scored yet' / hidden in '13 more problems')"),
    "d08_e8_cat_and_past_after": ("VAGUE", "cat/not-in-place diagnosed; past-after-update only as raw RuntimeErrors in the given attention"),
    "d10_e10_norescale_and_positions": ("VAGUE", "query positions diagnosed; online_softmax missing rescale only as wrong values (diagnosed when alone, m75)"),
    "d11_e1_transposed_and_interleaved": ("VAGUE", "W.T diagnosed; interleaved fused columns only as wrong values (diagnosed when alone, m02)"),
    "d13_e6_nocausal_and_noout": ("VAGUE", "NO diagnosis at all (each was diagnosed alone, m43/m46); one ✗ line says 'attend with causal_mask(L), and keep each token's numbers together in split_heads and merge_heads' — the second half is a red herring"),
    "d15_e5_sdpa_maskinv_and_querydim": ("VAGUE", "softmax over queries diagnosed; the inverted mask is not named anywhere (d04 with mask inversion + d_v got both)"),
}
NOTES = {
    "d16_e8_forward_nopast_and_float32": "mask offset diagnosed (➜); float32 named by a ✗ line only ('the size of float32 rounding')",
    "d18_e7_forward_merge_and_rep": "both diagnosed; the merge hint names 'merge_heads', a function exercise 7 does not have",
    "m94_e7_default_mask_cpu": "hint 3 first quotes the given causal_mask line (correct code) before the caller at line 123, the real slip",
    "d01_e3_dk_and_inplace": "÷d_k diagnosed (➜); in-place named by the ✗ test line only (with its fix)",
    "d14_e10_float_and_lastblock": "last block diagnosed (➜); float crossover named by the ✗ test line only",
    "m92_e5_sum_guard_missing": "mechanism text says '-inf - (-inf), then 0/0' though this code already guards the max; the fix names both guards",
    "m28_e5_sum_last_dim": "hint 1 talks of 'each query's row' for a generic softmax(x, dim=0); picture labelled 'rows are queries, columns keys'",
    "m66_e9_prev_mean_wrong_axes": "hint 3 is a menu ('over the heads too, over the queries only, or over everything')",
    "m69_e9_tokens_interleaved": "hint 1 generic ('breaks one of these rules'); hints 2-3 precise",
    "m25_e4_arange_cpu": "caught on a CPU-only machine (names the CPU arange at line 59)",
    "m17_e3_sqrt_in_float32": "names the float32 constant (factor 1-1e-08)",
}


def said(name):
    p = os.path.join(ROOT, name, "result.txt")
    if not os.path.exists(p):
        return "(not graded)", ""
    t = open(p).read()
    score = re.search(r"^(✓|✗) exercise\d+ .*?(\d+/\d+)", t, re.M)
    sc = score.group(2) if score else "?"
    if score and score.group(1) == "✓":
        return f"full marks {sc}", sc
    blocks = re.findall(r"➜ hint \d of \d: the mistake: (.*?)(?=\n    ➜|\n    ✗|\n\n)", t, re.S)
    if blocks:
        s = " / ".join(re.sub(r"\s+", " ", b)[:150] for b in blocks)
    else:
        m = re.search(r"\n    ✗ (.*?)(?=\n    ✗|\n    …|\n\n)", t, re.S)
        s = "no diagnosis; " + re.sub(r"\s+", " ", m.group(1))[:150] if m else "?"
    return f"{sc}: {s}", sc


def main():
    rows, counts = [], {}
    for name, ex, edits, mistake, predict in make.CASES:
        s, sc = said(name)
        if name.startswith("c"):
            verdict = "OK (full marks)" if s.startswith("full marks") else "FALSE-FAIL"
        elif s.startswith("full marks"):
            verdict = "MISSED"
        else:
            verdict = NOT_RIGHT.get(name, ("RIGHT", None))[0]
        if name in NOT_RIGHT:
            s = f"{sc}: " + NOT_RIGHT[name][1]
        if name in NOTES:
            s += f" [note: {NOTES[name]}]"
        counts[verdict] = counts.get(verdict, 0) + 1
        esc = lambda x: x.replace("|", "\\|")
        rows.append(f"| {name} | {esc(mistake)} | {esc(predict)} | {esc(s)} | {verdict} |")
    print("counts:", counts, file=sys.stderr)
    print("| file | mistake | prediction (what a good diagnosis must name) | what the grader said (short) | verdict |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
