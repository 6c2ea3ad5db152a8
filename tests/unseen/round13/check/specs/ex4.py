STUB = "exercise4_masking.py"
DEFAULT = [
    "return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))",
    "return scores.masked_fill(~mask, float('-inf'))",
    "return (torch.arange(L, device=lengths.device) < lengths[:, None]).unsqueeze(1)",
]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"

add("wrong", "strict_lower_triangle",
    "causal_mask uses torch.tril(..., diagonal=-1), which also hides the diagonal, so token i cannot see itself and row 0 is all False.",
    "diagonal=-1 excludes the diagonal: a token must be able to read itself (row i sees 0..i, and row 0 needs its one key); use torch.tril with the default diagonal=0.",
    r"(?i)(diagonal|itself|row 0|off[- ]by[- ]one|0\.\.i|strict)",
    r"(?i)(device|dtype|in[- ]place|padding|-1e9)",
    ["return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)", None, None],
    fails=["causal_values"])
add("wrong", "causal_ignores_device",
    "causal_mask builds its mask without passing device=, so it is always on the CPU whatever device is asked for.",
    "causal_mask ignores its device argument, so a GPU caller gets a CPU mask; pass device=device to torch.ones.",
    r"(?i)(device|cpu|cuda|gpu)",
    r"(?i)(diagonal|dtype|in[- ]place|padding|-1e9)",
    ["return torch.tril(torch.ones(L, L, dtype=torch.bool))", None, None], fails=["causal_device"])
add("wrong", "masked_fill_inplace",
    "apply_mask uses scores.masked_fill_ (with the underscore), writing -inf into the caller's scores in place.",
    "masked_fill_ edits scores itself (and breaks autograd on a leaf); use the out-of-place masked_fill, which returns a new tensor.",
    r"(?i)(in[- ]place|masked_fill_|underscore|new tensor|input.*(chang|modif)|(chang|modif).*(input|scores))",
    r"(?i)(device|dtype|diagonal|-1e9|padding)",
    [None, "return scores.masked_fill_(~mask, float('-inf'))", None], fails=["apply_unchanged"])
add("wrong", "padding_query_axis_last",
    "padding_mask adds the query axis at the end, returning (B, L, 1) instead of (B, 1, L), so the mask broadcasts over keys instead of queries.",
    "The mask is (B, L, 1): its length axis lines up with the queries, not the keys; add the query axis in the middle with unsqueeze(1) / [:, None, :] to get (B, 1, L).",
    r"(?i)(\(B, ?1, ?L\)|\(B, ?L, ?1\)|unsqueeze|axis|query (axis|dim)|shape|broadcast)",
    r"(?i)(device|dtype|in[- ]place|diagonal|-1e9|<=)",
    [None, None, "return (torch.arange(L, device=lengths.device) < lengths[:, None]).unsqueeze(-1)"],
    fails=["padding_values"])
add("wrong", "large_negative_not_inf",
    "apply_mask ports the -1e9 fill value from older Transformer code instead of -inf, so masked keys keep a tiny weight and the docstring's -inf is not there (float16 cannot even hold -1e9).",
    "Fill the masked scores with float('-inf'), not -1e9: -1e9 is not -inf (a fully masked row is not all -inf) and overflows float16.",
    r"(?i)(-1e9|-inf|infinity|large negative|finite|overflow|float16)",
    r"(?i)(device|in[- ]place|diagonal|padding|shape)",
    [None, "return scores.masked_fill(~mask, -1e9)", None], fails=["apply_values", "apply_dtypes"])
add("wrong", "additive_log_mask",
    "apply_mask adds torch.log(mask.float()) to the scores; the values are right (log 1 = 0, log 0 = -inf) but the float32 mask promotes float16/bfloat16 scores to float32.",
    "mask.float() is float32, so scores + log(mask.float()) comes back float32 for half-precision scores; use scores.masked_fill(~mask, float('-inf')) (or a mask in scores.dtype).",
    r"(?i)(dtype|float32|\.float\(\)|promot|half|float16|bfloat16)",
    r"(?i)(device|in[- ]place|diagonal|-1e9|shape)",
    [None, "return scores + torch.log(mask.float())", None], fails=["apply_dtypes"])
add("wrong", "causal_mask_not_bool",
    "causal_mask is torch.tril(torch.ones(L, L)) without dtype=torch.bool, a float mask of 1s and 0s, so ~mask fails and the mask is not the documented bool tensor.",
    "torch.ones defaults to float32, so your mask is not bool (and ~mask raises); make the ones with dtype=torch.bool.",
    r"(?i)(bool|dtype|float|~mask|bitwise)",
    r"(?i)(device|in[- ]place|diagonal|-1e9|shape)",
    ["return torch.tril(torch.ones(L, L, device=device))", None, None], fails=["causal_values"])
add("wrong", "padding_width_from_lengths",
    "padding_mask uses lengths.max() as the padded length instead of the argument L, so the mask is too short when the longest sequence is shorter than L.",
    "You size the mask by lengths.max(), but the padded length is the L you are given (the longest sequence may be shorter than L); use torch.arange(L).",
    r"(?i)(lengths\.max|max\(\)|longest|argument L|given L|shorter than L|ignor)",
    r"(?i)(device|dtype|in[- ]place|diagonal|-1e9)",
    [None, None, "n = int(lengths.max())\nreturn (torch.arange(n, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]"],
    fails=["padding_values"])
add("honest", "arange_compare_where",
    "causal mask as a comparison of a column and a row of positions; apply_mask with torch.where against a -inf scalar tensor; padding mask via broadcasting positions against lengths.",
    "", OKX, BADX,
    ["pos = torch.arange(L, device=device)\nreturn pos[:, None] >= pos[None, :]",
     "return torch.where(mask, scores, torch.full((), float('-inf'), dtype=scores.dtype, device=scores.device))",
     "pos = torch.arange(L, device=lengths.device)\nreturn (pos.view(1, 1, L) < lengths.view(-1, 1, 1))"])
add("honest", "triu_complement_clone",
    "causal mask as the complement of the strict upper triangle; apply_mask clones the scores and writes -inf through an expanded boolean index; padding mask from a cumulative count of positions.",
    "", OKX, BADX,
    ["return ~torch.ones(L, L, dtype=torch.bool, device=device).triu(1)",
     "out = scores.clone()\nout[~mask.expand_as(out)] = float('-inf')\nreturn out",
     "B = lengths.shape[0]\ncount = torch.ones(B, L, dtype=torch.long, device=lengths.device).cumsum(-1)\nreturn (count <= lengths.unsqueeze(-1)).unsqueeze(-2)"])
VARIANTS = V
