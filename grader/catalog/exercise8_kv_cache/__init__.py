"""Exercise 8 — The KV cache: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Decode


def perf_cases(d_model, heads, kv_heads, batch, lengths):
    """The chapter's Llama-2 example in miniature: as many KV heads as heads, so that recomputing the
    past costs what it really does; decode steps timed at each cached length."""
    return [Decode((d_model, heads, kv_heads), batch, lengths)]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import torch

    import lumen_ref as ref
    from grader import oracle

    gqa = r.module(ref.GroupedQueryAttention, 12, 4, 2)
    weights = [p.weight for p in (gqa.q_proj, gqa.k_proj, gqa.v_proj, gqa.o_proj)]
    cached = ref.CachedGroupedQueryAttention(12, 4, 2).to(r.device, torch.float64)
    cached.load_state_dict(gqa.state_dict())
    chunks = [3, 1, 4]
    cache = ref.KVCache(2, 2, 3, max_len=8, dtype=torch.float64, device=r.device)
    tokens = r.randn(2, sum(chunks), 12)
    decoded = [cached(part, cache) for part in tokens.split(chunks, dim=1)]
    yield "KV cache, chunks 3+1+4", decoded, oracle.cached_attention_outputs(tokens, *weights, 4, 2, chunks)
    yield ("kv_cache_bytes (Llama-2 7B, 4,096 tokens)", ref.kv_cache_bytes(32, 32, 128, 4096),
           oracle.kv_cache_bytes(32, 32, 128, 4096))


EXERCISE = Exercise(
    title="The KV cache",
    section="The KV cache: a preview",
    names=("kv_cache_bytes", "KVCache", "CachedGroupedQueryAttention"),
    shapes={"kv_cache_bytes": Shapes(args=("n_layers", "n_kv_heads: H_kv", "d_head: d_k", "seq_len: L", "batch_size: B")),
            "KVCache": Shapes(made=("batch_size: B", "n_kv_heads: H_kv", "d_head: d_k", "max_len"),
                              methods={"update": ("k: B H_kv L d_k", "v: B H_kv L d_k")}),
            "CachedGroupedQueryAttention": Shapes(made=("d_model: D", "n_heads: H", "n_kv_heads: H_kv"),
                                                  args=("x: B L D",), derived=lambda s: {"d_k": s["D"] // s["H"]})},
    rules=(
        Rule("Keys AND values (a factor 2)", ("test_kv_cache_bytes_llama2_7b", "test_kv_cache_bytes_cases")),
        Rule("allocates its storage ONCE", ("test_kvcache_update_writes_into_its_storage",),
             breaks=("        self.k[:, :, start:end] = k ",
                     "        self.k = torch.cat([self.k[:, :, :start], k, self.k[:, :, end:]], 2)  #")),
        Rule("Nothing is allocated or concatenated afterwards", ("test_kvcache_update_writes_into_its_storage",)),
        Rule("views of the storage, not copies", ("test_kvcache_update_writes_into_its_storage",)),
        Rule("returns ALL keys and values cached so far", ("test_kvcache_update_returns_everything",)),
        Rule("in the cache's dtype and on its device", ("test_kvcache_update_returns_everything",
                                                        "test_kvcache_half_precision")),
        Rule("len(cache) the number of tokens cached, T, whatever their values",
             ("test_kvcache_len", "test_kvcache_len_counts_tokens_whatever_their_values"),
             breaks=("        return self.length\n", "        return int(self.k[0, 0].ne(0).any(-1).sum())\n")),
        Rule("forgets every token (the storage is kept for the next sequence)",
             ("test_kvcache_reset", "test_cached_gqa_reset_between_sequences", "test_kvcache_reset_keeps_its_storage"),
             breaks=("        self.length = 0\n", "        self.length = 0\n        self.k = torch.zeros_like(self.k)\n")),
        Rule("it allocates no new storage", ("test_kvcache_reset_keeps_its_storage",)),
        Rule("Appending past max_len raises ValueError and leaves the cache as it was",
             ("test_kvcache_full_raises_value_error",),
             breaks=("        if end > self.max_len:", "        if end >= self.max_len:")),
        Rule("Same parameters as exercise 7's GroupedQueryAttention", ("test_cached_gqa_other_head_counts",
                                                                       "test_cached_gqa_float64")),
        Rule("gives the same outputs as the whole sequence at once", ("test_cached_gqa_chunked",)),
        Rule("or None to attend within x only", ("test_cached_gqa_without_cache",)),
        Rule("The new token i sits at position past + i", ("test_cached_gqa_chunked",)),
        Rule("len(cache) is past + T_new after the call", ("test_cached_gqa_chunked", "test_cached_gqa_other_head_counts")),
        Rule("Inputs are left unchanged (except the cache, which `update` fills)", ("test_cached_gqa_input_not_modified",)),
        Rule("A float64 input is computed in float64 all the way", ("test_cached_gqa_float64",)),
        Rule("tensors come back in the inputs' dtype and on their device", ("test_cached_gqa_float64",
                                                                            "test_cached_gqa_half_precision",
                                                                            "test_cached_gqa_on_the_inputs_device")),
        Rule("autograd through your code gives the chapter's gradients", ("test_cached_gqa_gradients",
                                                                            "test_cached_gqa_trains_through_its_cache")),
        Rule("one forward(x, cache) on an empty cache", ("test_cached_gqa_trains_through_its_cache",)),
    ),
    reference=("kv_cache",),
    forbidden=("fused-attention", "multihead-attention"),
    watched=("KVCache.update", "KVCache.reset"),
    perf=Perf(sizes={"cpu": dict(d_model=512, heads=8, kv_heads=8, batch=1, lengths=(128, 256, 512, 1024)),
                     "cuda": dict(d_model=2048, heads=16, kv_heads=16, batch=4, lengths=(512, 1024, 2048, 4096))},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    introduction=r"""
## What this step computes

A language model generates one token at a time, and each new token attends to every earlier
one. The earlier tokens' keys and values never change (each depends only on its own token, and
the causal mask keeps earlier tokens from seeing later ones), so instead of recomputing them at
every step they are kept: the KV cache. A step projects only the new tokens, appends their keys
and values to the cache, and attends to everything cached.

**Its size.** Keys and values (the factor 2) for every layer, KV head, $d_{head}$ number, token and
sequence of the batch:

$$\text{bytes} = 2 \times n_{layers} \times h_{kv} \times d_{head} \times L \times B \times \text{bytes per value}$$

With grouped-query attention it is $h_{kv}$, the number of KV heads, that counts, not the number
of query heads. Llama-2 7B ($n_{layers} = 32$, $h_{kv} = h = 32$, $d_{head} = 128$, fp16 so 2 bytes):
$2 \times 32 \times 128 \times 2 = 16{,}384$ bytes per token per layer, 512 KiB per token over the
32 layers, and a 4,096-token sequence needs $2^{31}$ bytes $= 2$ GiB. Llama-2 70B (80 layers,
$h_{kv} = 8$) needs 320 KiB per token, where full multi-head attention with its 64 heads would
need 2.5 MiB.

**The mask of a cached step.** With `past` tokens cached, the new token $i$ (counting from 0 among
the new ones) sits at position $\text{past} + i$ and may read keys $0 \dots \text{past} + i$:

$$M_{ij} = \big(j \le \text{past} + i\big), \qquad M \text{ of shape } (T_{new},\ \text{past} + T_{new})$$

the lower triangle shifted right by `past` (`tril(diagonal=past)`). With `past = 0` it is the
causal mask of exercise 4.

## Shapes

| tensor | shape |
|---|---|
| the cache's storage, allocated once | keys and values, each $(B, h_{kv}, \text{max\_len}, d_{head})$ |
| `cache.update(k, v)` takes | $k, v$: $(B, h_{kv}, T_{new}, d_{head})$ |
| and returns | all keys and values so far, each $(B, h_{kv}, T, d_{head})$ with $T = $ `len(cache)` |
| `CachedGroupedQueryAttention(x, cache)` | $x$ $(B, T_{new}, D)$ → $(B, T_{new}, D)$ |

Feeding a sequence in chunks (3 tokens, then 1, then 5) through one cache gives the same outputs
as the whole sequence at once through exercise 7's attention.

**Read in the chapter:** "The KV cache: a preview", then "Grouped-query and multi-query attention".
""",
)
