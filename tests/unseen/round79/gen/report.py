import re, os, glob
pred = {}
for line in open('predictions.md'):
    if line.startswith('| m'):
        c = [x.strip() for x in line.strip().strip('|').split('|')]
        pred[c[0]] = c
V = {  # verdict, notes (files not listed: RIGHT, no special note)
 'm14_D_apply_nonot_inplace': ('RIGHT', 'inversion in ➜; the in-place half only in a ✗ check, which names it and the fix (masked_fill, not masked_fill_)'),
 'm15_softmax_no_max': ('RIGHT', 'fix also says to guard all -inf rows, which this file already does (harmless extra advice)'),
 'm21_D_nomax_noscale': ('RIGHT', 'scale in ➜; no-max only in ✗ checks, which name it ("subtract each slice\'s max")'),
 'm26_mha_scale_dmodel': ('RIGHT', 'also found a real 2nd bug my edit introduced (own softmax gives NaN on fully masked rows); that hint is shown first'),
 'm29_D_split_merge_noT': ('RIGHT', 'two ➜ diagnoses, one per function'),
 'm30_D_mha_nocausal_scale_dmodel': ('VAGUE', 'no ➜ at all. A ✗ says "with mask=None attend with causal_mask(L), and keep each token\'s numbers together in split_heads and merge_heads" (the second half points at correct code); the √d_model scale is named nowhere, although alone (m26) it is diagnosed'),
 'm37_D_tiled_merge_noT': ('VAGUE', 'repeat tiling RIGHT in ➜; the merge without transpose inside forward is named nowhere (even with -v)'),
 'm40_cache_heads_axis': ('VAGUE', 'no ➜; only "The expanded size of the tensor (8) must match ... dimension 2" crashes at line 119 in update (correct line, no cause)'),
 'm44_cache_cat_grow': ('RIGHT', 'score 38/39 for a cache that does not preallocate: the point of the exercise costs 1 point'),
 'm50_D_cache_axis_noadvance': ('VAGUE', 'no ➜; the same crashes as m40; the missing length update (diagnosed alone in m41) is hidden'),
 'm51_T_bytes_past_detach': ('VAGUE', '×2 RIGHT in ➜; past-after-update and detach (each diagnosed alone: m46, m48) not named; the gradient check only reports wrong values'),
 'm57_D_find_heads_tensor_ge': ('VAGUE', 'tensor-not-int RIGHT in ➜; the >= is hidden: the threshold-equal test fails on the type message only (staged feedback; surfaces after the int fix)'),
 'm58_D_prev_superdiag_ind_first': ('RIGHT', 'two ➜, one per function'),
 'm62_online_rescale_inverted': ('VAGUE', 'no ➜. Misleading ✗ text: "e^x overflowed: shift every exponent by the running max, e^(s - m), never e^s" — the code does shift by the running max; the overflow is the inverted factor e^(m_new - m_old). Borderline WRONG'),
 'm66_tiled_full_scores': ('RIGHT', 'score 47/51 for code that is not tiled at all'),
 'm68_D_online_norescale_noinf': ('VAGUE', 'no ➜; the -inf guard is named in ✗ ("shift by 0 while the running max is -inf"); the missing rescale (diagnosed alone in m61) is not'),
 'm69_T_crossover_noscale_offset': ('VAGUE', 'crossover RIGHT in ➜; missing √d_k and the query offset in tiled_attention (each diagnosed alone: m71, m65) not named'),
 'm70_D_tiled_o_norescale_excl_diag': ('RIGHT', 'two ➜ in the same function: good'),
 'm73_cache_reset_realloc': ('RIGHT', '38/39'),
 'm77_causal_no_device': ('RIGHT', 'caught on a CPU-only run (25/26)'),
 'm84_tiled_o_dk_shape': ('VAGUE', 'no ➜; crash "size of tensor a (5) must match b (7)" at line 131 (o update): right line, cause (o shaped like q, not v) left to the student'),
 'm85_cached_past_from_storage': ('VAGUE', 'no ➜, 37/39 (near MISSED); the crash is located in the GIVEN sdpa (line 48) "called from line 167", not at the line computing past'),
 'm87_softmax_subtract_min': ('VAGUE', 'no ➜; ✗ says "e^x overflowed ... subtract each slice\'s max" — the right fix, but it does not see that the code subtracts the min'),
 'm89_cached_mask_square': ('VAGUE', 'no ➜; crash located in the given sdpa (line 48) called from line 167; the cause (mask (T_new,T_new) instead of (T_new, past+T_new)) not named'),
 'm91_apply_mask_mul_inf': ('RIGHT', 'but two ✗ texts mislead: a generic NaN text suggests e^x overflow / subtract the row max (no exp in apply_mask), and test_no_peeking says "no query reads any key ... a causal mask hides only the future" (suggests an over-hiding mask)'),
}
rows = []
for d in sorted(glob.glob('m[0-9]*'), key=lambda s: int(s[1:3])):
    r = open(os.path.join(d, 'result.txt')).read()
    sc = re.search(r'^[✓✗] exercise\d+ .*?(\d+/\d+)', r, re.M).group(1)
    h3 = re.findall(r'➜ hint \d of \d: the mistake: (.*?)(?=\n    [➜✗…(]|\n\n)', r, re.S)
    diag = ' ‖ '.join(' '.join(x.split())[:150] for x in h3) or '(none: only failed checks)'
    p = pred[d]
    v, note = V.get(d, ('RIGHT', ''))
    uid = ' uid65534: same score' if os.path.exists(os.path.join(d, 'result-u65534.txt')) else ''
    rows.append((d, p[1], p[2], p[3], sc, diag, v, (note + (';' if note and uid else '') + uid).strip()))
open('gen/rows.md','w').write('\n'.join('| ' + ' | '.join(x.replace('|','/') for x in r) + ' |' for r in rows))
from collections import Counter
print(Counter(r[6] for r in rows), len(rows))
