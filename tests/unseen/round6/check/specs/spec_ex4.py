EX = 4
STUB = "exercise4_masking.py"
CORRECT = {
    "causal_mask": """
return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)
""",
    "apply_mask": """
return scores.masked_fill(~mask, float("-inf"))  # a new tensor
""",
    "padding_mask": """
j = torch.arange(L, device=lengths.device)  # (L,)
return (j[None, :] < lengths[:, None])[:, None, :]  # (B, 1, L)
""",
}
VARIANTS = [
    dict(slug="causal_float", kind="wrong",
         mistake="causal_mask returns torch.tril(torch.ones(L, L)) as a float tensor of 1.0/0.0, not a bool mask",
         ideal="causal_mask builds torch.ones(L, L) without dtype=torch.bool, so it returns a float tensor of ones and zeros instead of a bool mask (and ~mask then fails).",
         expect=[r"bool|dtype|float"],
         reject=[r"diagonal (is |was )?(wrong|excluded|missing)|off[- ]by[- ]one", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"causal_mask": """
return torch.tril(torch.ones(L, L, device=device))
"""}),
    dict(slug="strict_lower", kind="wrong",
         mistake="causal_mask uses tril(diagonal=-1), which also hides the diagonal: token i cannot read itself and row 0 is fully masked",
         ideal="causal_mask uses torch.tril(..., diagonal=-1), which excludes the diagonal, so a token may not attend to itself and the first row is entirely False (all -inf, NaN after softmax).",
         expect=[r"diagonal|itself|self|strict", r"-1|exclud|row 0|first row|on and below|fully masked"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"causal_mask": """
return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)
"""}),
    dict(slug="causal_no_device", kind="wrong",
         mistake="causal_mask ignores its device argument: the mask is always made on the CPU",
         ideal="causal_mask never passes device= to torch.ones, so the mask is always on the CPU and a GPU device argument is ignored.",
         expect=[r"device|cuda|gpu|cpu"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"diagonal (is |was )?(wrong|excluded|missing)|off[- ]by[- ]one"],
         bodies={"causal_mask": """
return torch.tril(torch.ones(L, L, dtype=torch.bool))
"""}),
    dict(slug="slice_alias_inplace", kind="wrong",
         mistake="apply_mask 'copies' the scores with scores[:] (a view, not a copy) and then uses masked_fill_, so the caller's scores are overwritten",
         ideal="apply_mask takes scores[:] believing it is a copy, but for a tensor it is a view, so the in-place masked_fill_ writes -inf into the caller's scores.",
         expect=[r"view|alias|\[:\]|not a copy|same (memory|storage)|in[- ]?place|masked_fill_", r"scores|input|caller|modif|overwrit"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"apply_mask": """
out = scores[:]  # a copy of the scores
out.masked_fill_(~mask, float("-inf"))
return out
"""}),
    dict(slug="large_negative", kind="wrong",
         mistake="apply_mask fills with -1e9 instead of -inf, so masked keys are finite and a fully masked row gets uniform weights instead of zeros",
         ideal="apply_mask fills masked positions with -1e9 instead of -inf, so masked scores stay finite and a fully masked row later becomes uniform weights rather than all -inf (zero weights).",
         expect=[r"-?1e-?9|large negative|finite|instead of -?inf|not -?inf"],
         reject=[r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         bodies={"apply_mask": """
return scores.masked_fill(~mask, -1e9)
"""}),
    dict(slug="arithmetic_nan", kind="wrong",
         mistake="apply_mask masks arithmetically, scores * mask + (~mask) * -inf, and False * -inf = 0 * inf is NaN, so every allowed score becomes NaN",
         ideal="apply_mask computes scores * mask + (~mask) * float('-inf'); at allowed positions that adds 0 * -inf = NaN, so the allowed scores become NaN instead of keeping their values.",
         expect=[r"nan|0 ?\* ?-?inf|not a number", r"multipl|arithmetic|\*|allowed|true"],
         reject=[r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu", r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision"],
         bodies={"apply_mask": """
return scores * mask + (~mask) * float("-inf")
"""}),
    dict(slug="full_no_dtype", kind="wrong",
         mistake="apply_mask builds the -inf fill with torch.full(scores.shape, -inf) without dtype/device, so half-precision scores come back float32 (and GPU scores fail)",
         ideal="apply_mask makes its -inf tensor with torch.full(scores.shape, float('-inf')) without dtype= or device=, so torch.where promotes float16/bfloat16 scores to float32 and GPU scores meet a CPU tensor.",
         expect=[r"dtype|float32|half|bfloat16|float16|promot|device"],
         reject=[r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)", r"diagonal (is |was )?(wrong|excluded|missing)|off[- ]by[- ]one"],
         bodies={"apply_mask": """
neg = torch.full(scores.shape, float("-inf"))
return torch.where(mask, scores, neg)
"""}),
    dict(slug="pad_max_length", kind="wrong",
         mistake="padding_mask uses torch.arange(lengths.max()) instead of arange(L), so the mask is too short when the longest sequence is shorter than L",
         ideal="padding_mask builds its positions from lengths.max() instead of L, so when the longest sequence is shorter than the padded length L the mask has the wrong last dim (B, 1, max(lengths)) instead of (B, 1, L).",
         expect=[r"max|longest", r"\bL\b|padded length|shape|shorter"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"<="],
         bodies={"padding_mask": """
j = torch.arange(int(lengths.max()), device=lengths.device)
return (j[None, :] < lengths[:, None])[:, None, :]
"""}),
    dict(slug="pad_key_axis", kind="wrong",
         mistake="padding_mask adds the size-1 axis at the end, (B, L, 1), so it broadcasts over the keys (it hides padding QUERIES) instead of the query axis (B, 1, L)",
         ideal="padding_mask returns shape (B, L, 1) (unsqueeze at the end) instead of (B, 1, L), so it broadcasts along the keys and masks padding queries rather than padding keys.",
         expect=[r"\(B, ?L, ?1\)|wrong (axis|dim)|axis|unsqueeze|broadcast", r"quer|key|\(B, ?1, ?L\)"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"padding_mask": """
j = torch.arange(L, device=lengths.device)
return (j[None, :] < lengths[:, None]).unsqueeze(-1)
"""}),
    dict(slug="pad_cpu_arange", kind="wrong",
         mistake="padding_mask builds torch.arange(L) on the CPU (no device=), so lengths on a GPU give a device error",
         ideal="padding_mask calls torch.arange(L) without device=lengths.device, so comparing it with lengths on a GPU fails (the mask is not made on lengths' device).",
         expect=[r"device|cuda|gpu|cpu"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"lengths\.max|longest"],
         bodies={"padding_mask": """
j = torch.arange(L)
return (j[None, :] < lengths[:, None])[:, None, :]
"""}),
    dict(slug="arange_where_loop", kind="honest",
         method="causal mask by comparing row and column aranges; torch.where with a -inf scalar; padding mask from a cumulative sum of ones (positions 1..L) compared with lengths",
         ideal="Correct: i >= j is exactly the lower triangle, torch.where builds a new tensor, and the cumulative count 1..L compared with lengths marks keys 0..lengths[b]-1 True on lengths' device.",
         bodies={"causal_mask": """
idx = torch.arange(L, device=device)
return idx.unsqueeze(1) >= idx.unsqueeze(0)
""", "apply_mask": """
return torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
""", "padding_mask": """
B = lengths.shape[0]
ones = torch.ones(B, L, dtype=torch.long, device=lengths.device)
position_plus_one = ones.cumsum(dim=-1)  # 1, 2, ..., L in every row
return (position_plus_one <= lengths.unsqueeze(-1)).view(B, 1, L)
"""}),
    dict(slug="triu_clone", kind="honest",
         method="causal mask as the negation of the strict upper triangle; apply_mask clones then fills in place on the clone; padding via lengths.unsqueeze(-1) > arange",
         ideal="Correct: ~triu(diagonal=1) is the lower triangle with the diagonal, the in-place fill acts on a fresh clone, and the padding mask has shape (B, 1, L).",
         bodies={"causal_mask": """
upper = torch.ones(L, L, dtype=torch.bool, device=device).triu(diagonal=1)
return ~upper
""", "apply_mask": """
out = scores.clone()
out.masked_fill_(mask.logical_not(), float("-inf"))
return out
""", "padding_mask": """
pos = torch.arange(L, device=lengths.device).expand(lengths.shape[0], L)
return (lengths.unsqueeze(-1) > pos).unsqueeze(1)
"""}),
]
