M = [
 ("ex8-storage-f32", 8, "exercise8_kv_cache.py",
  "        self.k = torch.zeros(shape, dtype=dtype, device=device)", "        self.k = torch.zeros(shape, dtype=torch.float32, device=device)"),
 ("ex9-threshold-05", 9, "exercise9_head_patterns.py", "def find_heads(patterns, threshold=0.4):", "def find_heads(patterns, threshold=0.5):"),
 ("ex9-score-f64", 9, "exercise9_head_patterns.py", "    return below.mean(dim=(0, 2))  # (H,)", "    return below.mean(dim=(0, 2), dtype=torch.float64).to(pattern.dtype if pattern.dtype != torch.float32 else torch.float64)"),
 ("ex1-split-by-x", 1, "exercise1_projection.py", "    d = w_qkv.size(-1) // 3", "    d = x.size(-1)"),
 ("ex5-max-not-masked", 5, "exercise5_softmax.py", '    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)', '    x_max = x_max.clamp(min=-1e4)'),
]
