from build import H, W

BASE = {
    "causal_mask": """
        return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)
    """,
    "apply_mask": """
        return scores.masked_fill(~mask, float("-inf"))  # a new tensor; scores untouched
    """,
    "padding_mask": """
        positions = torch.arange(L, device=lengths.device)  # (L,)
        real = positions[None, :] < lengths[:, None]  # (B, L): key j is a real token
        return real[:, None, :]  # (B, 1, L)
    """,
}

NOT_DTYPE = r"\bdtype\b.*(lost|changed|not kept)|promot"
NOT_INPLACE = r"in.place"
NOT_DEVICE = r"not on (the|its) device|without device|device mismatch"

FILES = [
    W("strict_lower_triangle",
      "causal_mask uses tril(diagonal=-1), the strict lower triangle, so a token may not see itself and row 0 sees nothing",
      "causal_mask builds tril(..., diagonal=-1), the strictly lower triangle, so the diagonal is False: query i cannot read its own key i and query 0 sees no key at all (a fully masked row); token i may see keys 0..i, so keep the diagonal (diagonal=0).",
      [r"causal_mask", r"diagonal|strict|itself|own (key|token|position)|row 0|off.by.one|j ?<= ?i|0\.\.i"],
      [NOT_DEVICE, r"upper triangle|triu", NOT_INPLACE],
      {"causal_mask": """
        # strictly below the diagonal: no peeking at the current token either
        return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)
    """}),
    W("causal_ignores_device",
      "causal_mask never passes its `device` argument to torch.ones, so the mask is always made on the CPU",
      "causal_mask ignores its device argument: torch.ones(L, L, dtype=torch.bool) without device= makes the mask on the CPU whatever the caller asked for, so a GPU caller gets a CPU mask that cannot meet GPU scores; pass device=device to torch.ones.",
      [r"causal_mask", r"device"],
      [r"diagonal|strict|itself", NOT_INPLACE, NOT_DTYPE],
      {"causal_mask": """
        return torch.ones(L, L, dtype=torch.bool).tril()
    """}),
    W("masked_fill_in_place",
      "apply_mask uses masked_fill_ (in place), which writes -inf into the caller's scores instead of returning a new tensor",
      "apply_mask calls scores.masked_fill_(~mask, -inf), the in-place variant, so the caller's scores are overwritten with -inf (and scores that require grad raise); the docstring asks for a new tensor with scores untouched: use masked_fill without the underscore.",
      [r"apply_mask", r"masked_fill_|in.place|in place", r"caller|input|scores itself|chang|modif|mutat|overwrit|untouched|new tensor|leaf"],
      [r"diagonal|strict", NOT_DTYPE, r"finfo|-1e9|large negative"],
      {"apply_mask": """
        return scores.masked_fill_(~mask, float("-inf"))
    """}),
    W("hf_finfo_min",
      "apply_mask fills with torch.finfo(dtype).min, as Hugging Face's attention masks do, instead of -inf (ported from Hugging Face transformers)",
      "apply_mask fills the hidden scores with torch.finfo(scores.dtype).min, the large finite negative that Hugging Face's masks use, instead of -inf; the docstring asks for -inf, and with a finite fill a fully masked row is not all -inf, so its softmax gives uniform weights instead of zeros.",
      [r"apply_mask", r"finfo|-inf|infinity|finite|large negative|min(imum)? value"],
      [NOT_INPLACE, r"diagonal|strict", NOT_DEVICE],
      {"apply_mask": """
        # the most negative number the dtype can hold, as Hugging Face's attention masks use
        return scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    """}),
    W("log_mask_promotes_dtype",
      "apply_mask adds torch.log(mask.float()) (0 or -inf), a float32 tensor, so float16/bfloat16 scores come back promoted to float32",
      "apply_mask adds torch.log(mask.float()) to the scores; the values are right (log 1 = 0, log 0 = -inf), but mask.float() is float32, so float16 and bfloat16 scores are promoted to float32 and the result no longer has the scores' dtype; build the log-mask in scores.dtype or use masked_fill.",
      [r"apply_mask", r"dtype|float32|float16|bfloat16|half|promot"],
      [NOT_INPLACE, r"diagonal|strict", r"finfo|-1e9"],
      {"apply_mask": """
        # log(1) = 0 keeps a score, log(0) = -inf hides it
        return scores + torch.log(mask.float())
    """}),
    W("bool_index_no_broadcast",
      "apply_mask sets out[~mask] = -inf on a clone; boolean-mask indexing does not broadcast, so a (L_q, L_k) or (B, 1, L_k) mask against (B, H, L_q, L_k) scores raises or hits the wrong cells",
      "apply_mask clones the scores and assigns out[~mask] = -inf; boolean-mask indexing does not broadcast, it matches the mask against the leading dims, so a broadcastable mask such as (L_q, L_k) for (B, H, L_q, L_k) scores or (B, 1, L_k) for (B, L_q, L_k) raises an IndexError (or marks the wrong cells); use masked_fill or torch.where, which broadcast.",
      [r"apply_mask", r"broadcast|boolean.{0,12}index|index(ing)? with (a|the) (bool|mask)|out\[~?mask\]|IndexError|shape"],
      [NOT_INPLACE, r"diagonal|strict", NOT_DTYPE],
      {"apply_mask": """
        out = scores.clone()  # leave the caller's scores alone
        out[~mask] = float("-inf")
        return out
    """}),
    W("padding_le_off_by_one",
      "padding_mask compares j <= lengths[b], which also lets every query see key lengths[b], the first padding token",
      "padding_mask uses positions <= lengths[:, None]; key j is real only for j < lengths[b], so every query also sees key lengths[b], the first padding position (and a length-0 sequence still sees key 0); compare with < instead.",
      [r"padding_mask", r"<=|off.by.one|lengths\[b\]|first padding|one (extra|too many)|strict|j < lengths"],
      [NOT_DEVICE, r"diagonal", r"shape|\(B, ?1, ?L\)|query (axis|dim)"],
      {"padding_mask": """
        positions = torch.arange(L, device=lengths.device)
        real = positions[None, :] <= lengths[:, None]  # (B, L)
        return real[:, None, :]  # (B, 1, L)
    """}),
    W("padding_arange_on_cpu",
      "padding_mask builds torch.arange(L) without device=, so comparing it with lengths on a GPU fails",
      "padding_mask creates torch.arange(L) without device=, so the positions are on the CPU and comparing them with lengths on a GPU raises a device mismatch (and the mask would not be on lengths' device); use torch.arange(L, device=lengths.device).",
      [r"padding_mask", r"device|arange"],
      [r"<=|off.by.one", r"diagonal|strict", NOT_DTYPE],
      {"padding_mask": """
        positions = torch.arange(L)  # 0 .. L-1
        return (positions < lengths.unsqueeze(1)).unsqueeze(1)  # (B, 1, L)
    """}),
    W("padding_uses_longest_length",
      "padding_mask builds the positions up to lengths.max() instead of L, so the mask is (B, 1, max(lengths)) when the longest sequence is shorter than L",
      "padding_mask takes the mask width from lengths.max() instead of the padded length L, so when the longest sequence is shorter than L (which the docstring allows) the mask is (B, 1, max(lengths)), too narrow to broadcast against the (B, L_q, L) scores; use torch.arange(L).",
      [r"padding_mask", r"lengths\.max|max(imum)? length|longest|max\(lengths\)|shorter than L|\bL\b|width|shape|columns"],
      [r"<=|off.by.one", r"diagonal|strict", NOT_DTYPE],
      {"padding_mask": """
        longest = int(lengths.max())
        positions = torch.arange(longest, device=lengths.device)
        real = positions[None, :] < lengths[:, None]  # (B, longest)
        return real.unsqueeze(1)  # (B, 1, longest)
    """}),
    H("arange_compare_and_where",
      "causal mask from two aranges compared (row >= column), apply_mask with torch.where(mask, scores, -inf), padding by comparing lengths[:, None, None] with arange(L)",
      {"causal_mask": """
        idx = torch.arange(L, device=device)
        return idx[:, None] >= idx[None, :]  # query i sees key j when j <= i
    """,
       "apply_mask": """
        return torch.where(mask, scores, float("-inf"))
    """,
       "padding_mask": """
        return lengths[:, None, None] > torch.arange(L, device=lengths.device)  # (B, 1, 1) vs (L,) -> (B, 1, L)
    """}),
    H("triu_complement",
      "causal mask as the complement of the strict upper triangle (~triu(diagonal=1)), masked_fill with logical_not, padding from an expanded arange and view(-1, 1)",
      {"causal_mask": """
        future = torch.ones(L, L, dtype=torch.bool, device=device).triu(diagonal=1)  # j > i
        return ~future
    """,
       "apply_mask": """
        hidden = torch.logical_not(mask)
        return scores.masked_fill(hidden, -float("inf"))
    """,
       "padding_mask": """
        B = lengths.shape[0]
        cols = torch.arange(L, device=lengths.device).expand(B, L)
        return (cols < lengths.view(-1, 1)).unsqueeze(1)
    """}),
]
