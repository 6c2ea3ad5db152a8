STUB = "exercise4_masking.py"

CAUSAL_OK = """
return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))
"""
APPLY_OK = """
return scores.masked_fill(~mask, float("-inf"))
"""
PAD_OK = """
positions = torch.arange(L, device=lengths.device)  # (L,)
real = positions[None, :] < lengths[:, None]  # (B, L)
return real[:, None, :]  # (B, 1, L)
"""

FILES = [
    dict(name="wrong_triu_future", kind="wrong",
         mistake="causal_mask uses torch.triu, so each query sees itself and the FUTURE keys (on and above the diagonal) instead of the past",
         ideal="causal_mask: row i must see columns 0..i, the lower triangle (torch.tril); torch.triu keeps the upper triangle, i.e. the future",
         expect=r"tril|triu|lower|upper|future|above the diagonal|below the diagonal",
         reject=[r"dtype|device|in-?place|padding_mask|-1e9"],
         bodies=["""
return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))
""", APPLY_OK, PAD_OK]),
    dict(name="wrong_padding_key_axis", kind="wrong",
         mistake="padding_mask adds the extra dim at the end, returning (B, L, 1) instead of (B, 1, L), so it broadcasts over the keys and masks whole query rows",
         ideal="padding_mask: the size-1 axis is the query axis and comes before the keys: (B, 1, L) via real[:, None, :]; (B, L, 1) hides padded queries instead of padded keys",
         expect=r"\(B, ?1, ?L\)|\(B, ?L, ?1\)|query (axis|dim)|unsqueeze|shape|broadcast|keys",
         reject=[r"dtype|device|in-?place|off.by.one|<="],
         bodies=[CAUSAL_OK, APPLY_OK, """
positions = torch.arange(L, device=lengths.device)
real = positions[None, :] < lengths[:, None]  # (B, L)
return real.unsqueeze(-1)
"""]),
    dict(name="wrong_mask_ignores_device", kind="wrong",
         mistake="causal_mask never passes device= to torch.ones, so the mask is always on the CPU (a GPU model then fails when it masks its scores)",
         ideal="causal_mask: pass device=device when you create the tensor; otherwise the mask lives on the CPU whatever device was asked for",
         expect=r"device",
         reject=[r"dtype|triu|in-?place|upper"],
         bodies=["""
return torch.tril(torch.ones(L, L, dtype=torch.bool))
""", APPLY_OK, PAD_OK]),
    dict(name="wrong_float_mask", kind="wrong",
         mistake="causal_mask builds torch.ones without dtype=torch.bool, so it returns a float 0/1 matrix instead of a bool mask (~mask then fails)",
         ideal="causal_mask: the mask must be a bool tensor (True = may attend); torch.ones defaults to float, so pass dtype=torch.bool",
         expect=r"bool|dtype|float",
         reject=[r"device|triu|future|in-?place"],
         bodies=["""
return torch.tril(torch.ones(L, L, device=device))
""", APPLY_OK, PAD_OK]),
    dict(name="wrong_masked_fill_inplace", kind="wrong",
         mistake="apply_mask uses the in-place masked_fill_, which writes -inf into the caller's scores and returns that same tensor",
         ideal="apply_mask: masked_fill_ edits `scores` in place (the caller's scores change, and autograd may break); use the out-of-place masked_fill to return a new tensor",
         expect=r"in-?place|masked_fill_|new tensor|modif|mutat|untouched|chang",
         reject=[r"dtype|device|~mask|negat|-1e9"],
         bodies=[CAUSAL_OK, """
return scores.masked_fill_(~mask, float("-inf"))
""", PAD_OK]),
    dict(name="wrong_mask_not_negated", kind="wrong",
         mistake="apply_mask fills -inf where the mask is True (masked_fill(mask, ...)), hiding exactly the keys a query may see and keeping the forbidden ones",
         ideal="apply_mask: True means may attend, so -inf goes where the mask is False: masked_fill(~mask, float('-inf'))",
         expect=r"~mask|invert|negat|not mask|where the mask is False|True means|opposite|revers",
         reject=[r"dtype|device|in-?place|-1e9"],
         bodies=[CAUSAL_OK, """
return scores.masked_fill(mask, float("-inf"))
""", PAD_OK]),
    dict(name="wrong_minus_1e9", kind="wrong",
         mistake="apply_mask fills -1e9 (a common tutorial trick) instead of -inf: masked scores are finite, and for float16 scores masked_fill raises (-1e9 overflows half)",
         ideal="apply_mask: hidden scores must be -inf (e^-inf = 0 exactly, and it fits every dtype); -1e9 is not -inf and overflows float16",
         expect=r"-?inf|1e9|float16|half|overflow",
         reject=[r"device|in-?place|~mask|negat|triu"],
         bodies=[CAUSAL_OK, """
return scores.masked_fill(~mask, -1e9)
""", PAD_OK]),
    dict(name="wrong_padding_off_by_one", kind="wrong",
         mistake="padding_mask compares positions <= lengths instead of <, so each sequence also sees the first padding key (and a length-0 sequence sees key 0)",
         ideal="padding_mask: sequence b's real keys are j = 0..lengths[b]-1 (j < lengths[b]); <= lets one padding key through",
         expect=r"off.by.one|<=|< ?lengths|j < |one (extra|padding)|first padding|lengths\[b\]",
         reject=[r"dtype|device|in-?place|shape"],
         bodies=[CAUSAL_OK, APPLY_OK, """
positions = torch.arange(L, device=lengths.device)
real = positions[None, :] <= lengths[:, None]  # (B, L)
return real[:, None, :]
"""]),
    dict(name="honest_where_and_compare", kind="honest",
         method="causal_mask with Tensor.tril on new ones; apply_mask with torch.where against a scalar -inf; padding_mask by comparing lengths (B, 1, 1) with a (1, 1, L) arange",
         bodies=["""
ones = torch.ones((L, L), dtype=torch.bool, device=device)
return ones.tril()
""", """
return torch.where(mask, scores, float("-inf"))
""", """
keys = torch.arange(L, device=lengths.device).view(1, 1, L)
return lengths.view(-1, 1, 1) > keys
"""]),
    dict(name="honest_full_boolean_index", kind="honest",
         method="causal_mask as torch.tril with an explicit diagonal=0 on a full() bool tensor; apply_mask clones then writes -inf through boolean indexing on the broadcast mask; padding_mask via torch.lt and unsqueeze(1)",
         bodies=["""
full = torch.full((L, L), True, dtype=torch.bool, device=device)
return torch.tril(full, diagonal=0)
""", """
out = scores.clone()
hidden = (~mask).expand(scores.shape)
out[hidden] = float("-inf")
return out
""", """
key_index = torch.arange(L, device=lengths.device, dtype=lengths.dtype)
return torch.lt(key_index.unsqueeze(0), lengths.unsqueeze(1)).unsqueeze(1)
"""]),
]
