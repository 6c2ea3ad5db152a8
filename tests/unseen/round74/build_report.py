import json,glob
def load(d):
    t=open(d+"/result.json").read(); t=t[:t.rindex("[exit code")]; return json.loads(t)["exercises"][0]
R={ # name: (mistake, predicted cause, verdict)
"m01_proj_linear_T":("x @ w.T in project (nn.Linear habit)","weights are (d_model,d_k): X W, no transpose","RIGHT"),
"m02_fused_split3":("qkv.split(3) in fused_project","split takes chunk size d, not count 3","RIGHT"),
"m03_fused_interleaved":("fused output read as interleaved q,k,v columns","W_Q|W_K|W_V are side-by-side blocks","RIGHT"),
"m04_scores_dotT":("q @ k.T","`.T` reverses all dims incl. batch; use transpose(-2,-1)","RIGHT"),
"m05_scores_swapped":("k @ q.transpose(-2,-1)","result is K Qᵀ: rows must be queries","RIGHT"),
"m06_scores_pairwise":("(q*k).sum(-1) instead of a matmul","only q_i·k_i (diagonal), not all pairs","RIGHT"),
"m07_scale_by_d":("scores / d_k","divide by √d_k, not d_k","RIGHT"),
"m08_scale_precedence":("scores / d_k ** 1/2","precedence: = (scores/d_k)/2, not √d_k","RIGHT"),
"m09_dk_wrong_axis":("d_k = q.size(-2) in scaled_scores","d_k is q's width (last dim), not L_q","RIGHT"),
"m10_mask_triu":("causal_mask with triu","upper triangle = future; causal is tril","RIGHT"),
"m11_mask_strict":("tril(diagonal=-1)","diagonal must be allowed (token sees itself)","RIGHT"),
"m12_apply_inverted":("masked_fill(mask, -inf)","True = may attend; fill where ~mask","RIGHT"),
"m14_apply_multiply":("scores * mask","zero score still gets e^0 weight; need -inf","RIGHT"),
"m15_pad_le":("positions <= lengths","off-by-one: j < lengths[b]","RIGHT"),
"m16_pad_axis":("padding mask (B, L, 1)","must be (B,1,L): masks keys, not queries","RIGHT"),
"m17_softmax_unstable":("softmax without max subtraction","overflow e^1e4 → inf/inf = NaN","RIGHT"),
"m19_softmax_no_guard":("no -inf max guard, no zero-sum guard","fully -inf row → NaN","RIGHT"),
"m20_softmax_nan_to_num":("NaN made then hidden with nan_to_num","forward OK, but gradient of fully masked row is NaN","RIGHT"),
"m21_sdpa_mask_after":("zero masked weights after softmax","mask before softmax; rows no longer sum to 1","RIGHT"),
"m23_sdpa_dim_queries":("softmax(scores, dim=-2)","normalised over queries, must be over keys","RIGHT"),
"m24_sdpa_default_causal":("SDPA adds a causal mask when mask=None","mask=None means attend to everything","RIGHT"),
"m25_two_unstable_and_dim":("TWO: m17 (unstable) + m23 (dim=-2)","both: overflow and wrong softmax axis","VAGUE"),
"m26_split_direct_view":("split_heads: reshape straight to (B,H,L,dh)","view (B,L,H,dh) then transpose","RIGHT"),
"m27_split_strided":("split_heads: view (B,L,dh,H).permute","head h must get a contiguous column block, not every H-th column","RIGHT"),
"m28_merge_no_transpose":("merge_heads: contiguous().view, no transpose","transpose back before flattening","RIGHT"),
"m30_mha_no_causal":("MHA: no causal mask when mask=None","default must be causal","RIGHT"),
"m31_mha_mask_combined":("MHA: given mask AND causal","a given mask replaces the causal one","RIGHT"),
"m32_mha_qkv_chunk_heads":("MHA: qkv(x).view(B,L,D,3).unbind(-1)","fused qkv is [Q|K|V] blocks, not interleaved","RIGHT"),
"m33_repeat_tiled":("repeat_kv with .repeat(1,n_rep,1,1)","tiles [0,1,0,1]; need repeat_interleave","RIGHT"),
"m35_gqa_rep_factor":("rep = n_kv_heads","repeat factor is H / H_kv","RIGHT"),
"m36_gqa_full_kv_proj":("k_proj/v_proj with H heads (plain MHA), rep=1","K/V projections must have only H_kv heads","RIGHT"),
"m37_gqa_merge_reshape":("GQA merge: y.reshape(B,L,-1) without transpose","transpose heads back before flattening","RIGHT"),
"m38_gqa_float32":("attention run on q.float() etc., cast back","float64 must stay float64","RIGHT"),
"m39_gqa_no_causal":("GQA: no causal mask when mask=None","default must be causal","RIGHT"),
"m40_bytes_no_2":("kv_cache_bytes without factor 2","keys AND values","RIGHT"),
"m41_cache_overwrite":("update writes at [:T_new] every time","write at [len:len+T_new]","RIGHT"),
"m42_cache_returns_new_only":("update returns only the new slice","return all cached [:end]","RIGHT"),
"m43_cache_check_late":("length advanced before ValueError check","refused update must leave cache unchanged","RIGHT"),
"m45_cached_mask_no_offset":("mask.tril() instead of tril(diagonal=past)","new token i sits at past+i","RIGHT"),
"m46_cached_past_after_update":("past read after cache.update (mask all-True among new tokens)","past = len(cache) BEFORE update; new tokens see the future","RIGHT"),
"m48_prev_superdiag":("diagonal(offset=+1)","previous token is offset -1 (sub-diagonal)","RIGHT"),
"m49_induction_keep_first":("induction mean over the whole stripe","first stripe entry is a first-half query: drop it","RIGHT"),
"m51_repeat_dim0":("torch.cat(dim=0) in repeated_tokens","repeat along the sequence: (B, 2T)","RIGHT"),
"m54_online_no_rescale":("online_softmax: l not rescaled","l must be multiplied by e^(m_old-m_new)","RIGHT"),
"m55_online_no_inf_guard":("online_softmax: no shift-by-0 guard","all -inf (so far) row → NaN","RIGHT"),
"m56_tiled_o_not_rescaled":("tiled: o not rescaled (l is)","o needs the same rescale as l","RIGHT"),
"m57_tiled_causal_no_offset":("tiled: query positions arange(L_q)","queries are the last L_q positions","RIGHT"),
"m58_tiled_full_scores":("tiled: full S = Q Kᵀ up front, then loop","holds the L×L matrix (memory L²)","RIGHT"),
"m59_tiled_causal_ge":("tiled: mask key >= position","query may see its own key","RIGHT"),
"m60_tiled_two_noscale_norescale_l":("TWO: no 1/√d_k AND l not rescaled","both: missing scale and missing rescale of l","VAGUE"),
}
rows=[]; cnt={}
for d in sorted(glob.glob("m[0-9]*_*")):
    e=load(d); mis,cause,v=R[d]; cnt[v]=cnt.get(v,0)+1
    ds=e["diagnoses"]
    kit = "; ".join(f"`{x['id']}`: {x['message'][:110].replace('|','/')}…" for x in ds) if ds else "(no diagnosis)"
    rows.append(f"| {d.split('_')[0]} `{d}` | {mis} | {cause} | {int(e['score'])}/{int(e['max_score'])}; {kit} | {v} |")
open("table.md","w").write("\n".join(rows)+"\n")
print(cnt, len(rows))
