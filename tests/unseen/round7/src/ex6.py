from build import H, W

BASE = {
    "split_heads": """
        B, L, D = x.shape
        d_head = D // n_heads
        return x.view(B, L, n_heads, d_head).transpose(1, 2)  # (B, H, L, d_head)
    """,
    "merge_heads": """
        B, H, L, d_head = x.shape
        return x.transpose(1, 2).contiguous().view(B, L, H * d_head)  # (B, L, D)
    """,
    "MultiHeadAttention.__init__": """
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)  # W_Q, W_K, W_V side by side
        self.out = nn.Linear(d_model, d_model, bias=bias)  # W_O
    """,
    "MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)  # three (B, L, D)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))  # (B, H, L, d_head) each
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)
        return self.out(merge_heads(y))
    """,
}

NOT_DTYPE = r"\bdtype\b.*(lost|changed|not kept)"
NOT_INPLACE = r"in.place"
FWD = r"forward|MultiHeadAttention"

FILES = [
    W("merge_view_without_contiguous",
      "merge_heads calls .view(B, L, H * d_head) straight after transpose(1, 2), without .contiguous(): view cannot merge the non-contiguous head and d_head axes",
      "merge_heads views x.transpose(1, 2) as (B, L, H * d_head) without .contiguous(); after the transpose the H and d_head axes are not adjacent in memory, so view raises ('view size is not compatible with input tensor's size and stride'); call .contiguous() first (or use reshape).",
      [r"merge_heads", r"contiguous|reshape|stride|view"],
      [r"split_heads.{0,40}(wrong|bug|mistake)", NOT_DTYPE, NOT_INPLACE],
      {"merge_heads": """
        B, H, L, d_head = x.shape
        return x.transpose(1, 2).view(B, L, H * d_head)
    """}),
    W("split_true_division",
      "split_heads computes d_head = D / n_heads with true division, a float, and view rejects a float size",
      "split_heads computes d_head = D / n_heads; in Python 3 / is true division and gives a float (e.g. 3.0), and view only accepts ints, so it raises a TypeError on every call; use D // n_heads.",
      [r"split_heads", r"//|true division|float|int|TypeError|D ?/ ?n_heads"],
      [r"contiguous", NOT_INPLACE, r"transpose\(1, ?2\) (is )?missing"],
      {"split_heads": """
        B, L, D = x.shape
        d_head = D / n_heads
        return x.view(B, L, n_heads, d_head).transpose(1, 2)
    """}),
    W("neox_interleaved_qkv",
      "forward reads the fused qkv output in GPT-NeoX's per-head layout (B, L, H, 3*d_head) (ported from GPT-NeoX / Megatron query_key_value) instead of three [Q | K | V] blocks",
      "forward views self.qkv(x) as (B, L, H, 3·d_head) and splits each head's 3·d_head numbers into q, k, v, the per-head interleaved layout GPT-NeoX's query_key_value uses; this module's qkv is W_Q, W_K, W_V side by side (columns 0..D-1 are the queries), so split the output into three D-wide blocks first and then into heads.",
      [FWD, r"qkv|NeoX|interleav|layout|\[Q ?\| ?K ?\| ?V\]|side by side|blocks?|split\(D"],
      [r"contiguous", NOT_DTYPE, NOT_INPLACE],
      {"MultiHeadAttention.forward": """
        B, L, D = x.shape
        H, d = self.n_heads, D // self.n_heads
        # (B, L, 3D) -> (B, L, H, 3 * d_head): each head's q, k, v next to each other, as in GPT-NeoX
        qkv = self.qkv(x).view(B, L, H, 3 * d)
        q, k, v = qkv.split(d, dim=-1)  # (B, L, H, d_head) each
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """}),
    W("mask_combined_with_causal",
      "forward ANDs a given mask with the causal mask; the docstring says a given mask replaces the causal one",
      "forward uses mask & causal_mask(L) when a mask is given, but the docstring says a given mask replaces the causal one (it is not combined with it), so a bidirectional or padding-only mask still loses every key above the diagonal; use the given mask as it is and build the causal one only when mask is None.",
      [FWD, r"replac|combin|&|and(ed|s)? (it )?with|causal|above the diagonal"],
      [r"contiguous", NOT_DTYPE, r"device"],
      {"MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        causal = causal_mask(L, x.device)
        mask = causal if mask is None else mask & causal  # never let a token see the future
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """}),
    W("causal_mask_on_cpu",
      "forward builds the default mask with causal_mask(L), without x.device, so on a GPU the CPU mask meets GPU scores",
      "forward calls causal_mask(L) without passing x.device, so the default causal mask is made on the CPU; with the module and x on a GPU, masked_fill then mixes a CPU mask with GPU scores and raises; use causal_mask(L, x.device).",
      [FWD, r"device|causal_mask\(L\)"],
      [r"contiguous", NOT_DTYPE, r"replac|combin"],
      {"MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        if mask is None:
            mask = causal_mask(L)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """}),
    W("init_swaps_heads_and_width",
      "__init__ stores n_heads and d_head swapped (self.n_heads, self.d_head = d_model // n_heads, n_heads), so forward splits into d_head heads of width n_heads",
      "__init__ assigns self.n_heads, self.d_head = d_model // n_heads, n_heads, swapping the two: self.n_heads holds the head width, so forward splits the model width into d_head heads of n_heads numbers each; the output is wrong unless d_head == n_heads. Store n_heads = n_heads and d_head = d_model // n_heads.",
      [r"__init__|n_heads", r"swap|d_head|head (width|count)|number of heads|n_heads ?="],
      [r"contiguous", NOT_DTYPE, r"device"],
      {"MultiHeadAttention.__init__": """
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        self.n_heads, self.d_head = d_model // n_heads, n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
    """}),
    W("init_ignores_bias",
      "__init__ creates qkv and out with nn.Linear's default bias=True, ignoring the bias argument: with bias=False the module has extra bias parameters and the state dict does not load",
      "__init__ builds nn.Linear(d_model, 3 * d_model) and nn.Linear(d_model, d_model) without passing bias=bias, so MultiHeadAttention(..., bias=False) still has qkv.bias and out.bias; the grader's bias-free state dict then fails to load (missing keys) and the output gains a bias; pass bias=bias to both.",
      [r"__init__|nn\.Linear|bias", r"bias=bias|bias argument|bias=False|ignor|missing key|state.dict|qkv\.bias|out\.bias"],
      [r"contiguous", NOT_DTYPE, r"device"],
      {"MultiHeadAttention.__init__": """
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
    """}),
    W("nanogpt_inline_softmax",
      "forward inlines nanoGPT's CausalSelfAttention attention (masked_fill -inf, then softmax) instead of the given scaled_dot_product_attention (ported from nanoGPT): a query whose mask row is all False gets NaN",
      "forward writes nanoGPT's attention inline (att.masked_fill(~mask, -inf), torch.softmax, att @ v) instead of calling the given scaled_dot_product_attention; softmax of a row that is all -inf is 0/0, so a query that may see no key (a padding-only sequence) gets NaN weights and a NaN output instead of zeros (out's bias); use the given attention, which zeroes such rows.",
      [FWD, r"nan|not a number|0 ?/ ?0", r"fully masked|all.{0,6}False|all -inf|no key|padding"],
      [r"contiguous", NOT_DTYPE, r"device"],
      {"MultiHeadAttention.forward": """
        B, T, C = x.size()  # batch size, sequence length, embedding dimensionality (n_embd)
        q, k, v = self.qkv(x).split(C, dim=2)
        k = k.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)  # (B, nh, T, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if mask is None:
            mask = causal_mask(T, x.device)
        att = att.masked_fill(~mask, float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        return self.out(y)
    """}),
    W("merge_transpose_in_place",
      "merge_heads swaps the axes with x.transpose_(1, 2), in place, so the caller's tensor is left as (B, L, H, d_head)",
      "merge_heads calls x.transpose_(1, 2), the in-place transpose, so the caller's (B, H, L, d_head) tensor is left transposed to (B, L, H, d_head) after the call (the docstring says x must not change); use x.transpose(1, 2).",
      [r"merge_heads", r"transpose_|in.place|in place", r"caller|input|x itself|chang|modif|mutat|left"],
      [r"contiguous\(\) (is )?missing", NOT_DTYPE, r"device"],
      {"merge_heads": """
        B, H, L, d_head = x.shape
        x.transpose_(1, 2)  # (B, L, H, d_head)
        return x.contiguous().view(B, L, H * d_head)
    """}),
    H("unflatten_flatten_chunk",
      "split_heads with unflatten(-1, (H, -1)).transpose(1, 2), merge_heads with transpose(1, 2).flatten(-2), forward cutting the fused output with chunk(3)",
      {"split_heads": """
        return x.unflatten(-1, (n_heads, -1)).transpose(1, 2)  # (B, L, H, d_head) -> (B, H, L, d_head)
    """,
       "merge_heads": """
        return x.transpose(1, 2).flatten(-2)  # flatten copies when the memory is not in order
    """,
       "MultiHeadAttention.forward": """
        L = x.shape[1]
        q, k, v = (split_heads(t, self.n_heads) for t in self.qkv(x).chunk(3, dim=-1))
        y, _ = scaled_dot_product_attention(q, k, v, causal_mask(L, x.device) if mask is None else mask)
        return self.out(merge_heads(y))
    """}),
    H("timm_permute_layout",
      "ported from timm's ViT Attention: qkv(x).reshape(B, N, 3, H, d_head).permute(2, 0, 3, 1, 4).unbind(0); split/merge with reshape and permute(0, 2, 1, 3)",
      {"split_heads": """
        B, L, D = x.shape
        return x.reshape(B, L, n_heads, D // n_heads).permute(0, 2, 1, 3)
    """,
       "merge_heads": """
        B, H, L, d_head = x.shape
        return x.permute(0, 2, 1, 3).reshape(B, L, H * d_head)
    """,
       "MultiHeadAttention.forward": """
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)  # (B, H, N, d_head) each
        if mask is None:
            mask = causal_mask(N, device=x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """}),
]
