"""Exercise 8: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

import torch

import lumen_ref as ref
from grader.diagnosis.mutants import Misconception, CACHE

# lines of the solutions that the edits below rewrite
SOLUTION_DECODE = "        mask = mask.tril(diagonal=past)  # (T_new, past + T_new)\n"
SOLUTION_UPDATE_RETURN = "        return self.k[:, :, :end], self.v[:, :, :end]  # views, (B, Hkv, T, dh)\n"

# causes the suites' messages name themselves (no value shows them), and level 1 of their hint ladder
CAPACITY = "cache-capacity"
REALLOCATED = "cache-reallocated"
DTYPE_IGNORED = "cache-dtype-ignored"
BYTES_NOT_INT = "cache-bytes-not-whole"
LEN_FROM_VALUES = "cache-len-from-values"
STORAGE_UNSEEN = "cache-storage-unseen"
CAUSES = {
    LEN_FROM_VALUES: "The length of a cache is how many tokens it holds: every token an update hands it counts, "
                     "whatever numbers its key holds, zeros included. Yours counts from the values stored, so some "
                     "tokens are held but not counted. Reread " + CACHE + ".",
    BYTES_NOT_INT: "A number of bytes is a whole number, and Python's integers hold whole numbers exactly at any "
                   "size; a floating-point number keeps only about 16 significant digits and prints with a decimal "
                   "point, so it is not a count any more. Yours comes back as another kind of number than "
                   "Python's int. "
                   "Reread " + CACHE + ".",
    DTYPE_IGNORED: "A cache stores its keys and values in the precision it is made with: a float64 model reads "
                   "float64 keys back, a float16 one float16. Yours hands them back in another precision than the "
                   "cache was made for. Reread " + CACHE + ".",
    CAPACITY: "A cache has room for a fixed number of tokens, set when it is made: storing more would write past the "
              "end of its storage, so an update that does not fit is refused before anything changes, and one that "
              "fills it exactly is fine. Reread " + CACHE + ".",
    STORAGE_UNSEEN: "A cache is an object that owns its memory: the keys and values it stores live in its own "
                    "attributes, where whoever holds the cache holds them, and where the grader reads them to see that "
                    "the storage is kept. Yours holds fewer bytes of tensors in its attributes than the tokens it has "
                    "cached take, so they are kept somewhere else (a variable outside the cache) or in something the "
                    "grader does not read inside. Reread " + CACHE + ".",
    REALLOCATED: "A KV cache exists so that the past is stored once, in storage made when the cache is made and kept "
                 "for every sequence after: each new token should cost memory and time for itself, not for every "
                 "token before it. Yours makes something as large as the whole cache again after the cache was made "
                 "(as tokens are added, or as it is emptied for a new sequence). "
                 "Reread " + CACHE + ".",
}


def _update_not_advancing(cache, k, v):
    """lumen_ref's KVCache.update without its last step: the length is never advanced."""
    length = cache.length
    keys_values = ref.KVCache.update(cache, k, v)
    cache.length = length
    return keys_values


MISCONCEPTIONS = (
    Misconception(
        "kv-cache-ignores-past", (8,),
        "Your new tokens attend only to themselves: they must attend to ALL the keys and values "
        "cache.update(k, v) returns, the cached tokens' included: see " + CACHE,
        ({"decode_keys": lambda self, cache, k, v: (cache.update(k, v), (k, v))[1],
          "decode_mask": lambda self, T_new, past: torch.ones(T_new, T_new, dtype=torch.bool).tril()},),
        {8: [("            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)", "            cache.update(k, v)"),
             ("        mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)",
              "        mask = torch.ones(T_new, T_new, dtype=torch.bool, device=x.device)"),
             (SOLUTION_DECODE, "        mask = mask.tril()\n")]},
        principle="At generation time a new token must attend to every key and value so far, the cached ones "
                  "included: that is what the cache is for. Yours attends only among the new tokens. "
                  "Reread " + CACHE + ".",
        cause="You stored the new keys and values in the cache, then attended only to the new ones: what the cache "
              "hands back is never used.",
    ),
    Misconception(
        "kv-cache-not-updated", (8,),
        "Your forward never adds the new tokens to the cache, so the next call has nothing to attend to: "
        "k, v = cache.update(k, v) stores them and gives back every token cached so far: see " + CACHE,
        ({"decode_keys": lambda self, cache, k, v: (k, v),
          "decode_mask": lambda self, T_new, past: torch.ones(T_new, T_new, dtype=torch.bool).tril()},),
        {8: [("            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)", "            pass")]},
        includes=("kv-cache-ignores-past",),
        principle="A cache helps only if each call adds its tokens to it: the next call's new token must find every "
                  "earlier token's key and value stored there. Yours never stores them. Reread " + CACHE + ".",
        cause="Your forward never adds the new keys and values to the cache, so it stays empty.",
    ),
    Misconception(
        "kv-cache-causal-offset", (8,),
        "The causal mask among your new tokens sits in the wrong (top-left) corner: new token i is at "
        "position past + i and sees keys 0 .. past + i, a (T_new, past + T_new) mask tril(diagonal=past): see "
        + CACHE,
        ({"decode_mask": lambda self, T_new, past: torch.ones(T_new, past + T_new, dtype=torch.bool).tril()
          if T_new > 1 else torch.ones(1, past + 1, dtype=torch.bool)},
         {"decode_mask": lambda self, T_new, past: torch.ones(T_new, past + T_new, dtype=torch.bool).tril()}),
        {8: [(SOLUTION_DECODE, "        mask = mask.tril()\n")]},
        principle="New tokens come after the cached ones: with p tokens cached, new token i sits at position p + i, "
                  "and sees every cached key and the new ones up to itself. In yours, the new tokens' causal pattern "
                  "starts as if nothing were cached. Reread " + CACHE + ".",
        cause="Your mask for the new tokens is the lower triangle from the top-left corner: new token i sees keys 0 "
              ".. i only, as if it sat at position i, not past + i.",
    ),
    Misconception(
        "kv-cache-update-returns-new", (8,),
        "cache.update(k, v) returned only the new tokens: it must return ALL the keys and values cached so "
        "far, (B, H_kv, T, d_head) with T = len(cache), or the new tokens cannot attend to the past: see " + CACHE,
        ({"cache_update": lambda self, cache, k, v: (ref.KVCache.update(cache, k, v), (k, v))[1]},),
        {8: [(SOLUTION_UPDATE_RETURN, "        return k, v\n")]},
        includes=("kv-cache-ignores-past",),
        principle="The cache is the model's memory of the past: after new tokens are stored, the keys and values "
                  "they attend to are those of every token so far, the past ones and theirs. In yours, the past is "
                  "missing from what the cache hands back. Reread " + CACHE + ".",
        cause="Your cache.update returns only the new tokens' keys and values, not the cached ones before them.",
    ),
    Misconception(
        "kv-cache-length-not-advanced", (8,),
        "Your cache.update writes the new tokens but never adds them to the count: len(cache) stays where it "
        "was, so the next update writes over them and a forward sees no past; add T_new = k.size(2) to the "
        "length in update, after the writes: see " + CACHE,
        ({"cache_update": lambda self, cache, k, v: _update_not_advancing(cache, k, v)},),
        {8: [("        self.length = end\n        return self.k[:, :, :end]", "        return self.k[:, :, :end]")]},
        includes=("kv-cache-not-updated", "kv-cache-ignores-past"),
        principle="A cache's length is how many tokens it holds: each update stores its tokens after the ones "
                  "already there and counts them, so the next update comes after them and a forward sees them "
                  "as the past. In yours, the stored tokens are never counted. Reread " + CACHE + ".",
        cause="Your update writes the new tokens into the storage but leaves the cache's length as it was.",
    ),
    Misconception(
        "kv-cache-reset-keeps-length", (8,),
        "cache.reset() did not forget the cached tokens: set the number of tokens cached back to 0 (the "
        "storage may stay): see " + CACHE,
        ({"cache_reset": lambda self, cache: None},),
        {8: [("        self.length = 0\n        # END SOLUTION\n\n    def update",
              "        pass\n        # END SOLUTION\n\n    def update")]},
        principle="Resetting a cache starts a new sequence: afterwards it holds no tokens, and the next ones stored "
                  "are the first it counts. Yours still counts the old sequence's tokens. Reread " + CACHE + ".",
        cause="Your reset leaves the count of cached tokens as it was.",
    ),
    Misconception(
        "kv-cache-bytes-missing-factor-2", (8,),
        "The cache holds keys AND values: multiply by 2: see " + CACHE,
        ({"kv_cache_bytes": lambda self, *args, **kwargs: ref.kv_cache_bytes(*args, **kwargs) // 2},),
        {8: [("    return 2 * n_layers * n_kv_heads", "    return n_layers * n_kv_heads")]},
        principle="For every token, head and layer the cache stores two things, a key and a value: the 'KV' of its "
                  "name. Yours counts only one of them. Reread " + CACHE + ".",
        cause="Your count holds the keys only (or the values only): half the cache.",
    ),
    Misconception(
        "kv-cache-bytes-missing-batch", (8,),
        "Every sequence in the batch has a cache of its own: multiply by batch_size: see " + CACHE,
        ({"kv_cache_bytes": lambda self, *args, **kwargs: ref.kv_cache_bytes(
            *args, **{**kwargs, "batch_size": 1})},),
        {8: [("* seq_len * batch_size *", "* seq_len *")]},
        principle="A cache belongs to one sequence: when several sequences are generated at once, each keeps keys "
                  "and values of its own. Yours counts one sequence, whatever the batch. Reread " + CACHE + ".",
        cause="Your count leaves out the batch size: it is one sequence's cache.",
    ),
    Misconception(
        "kv-cache-bytes-counts-values", (8,),
        "That is how many numbers the cache holds, not how many bytes: multiply by bytes_per_value: see " + CACHE,
        ({"kv_cache_bytes": lambda self, *args, **kwargs: ref.kv_cache_bytes(
            *args, **{**kwargs, "bytes_per_value": 1})},),
        {8: [("* batch_size * bytes_per_value", "* batch_size")]},
        principle="A size in memory is counted in bytes, and each stored number takes as many bytes as its dtype "
                  "needs (2 in fp16, 4 in float32). Yours counts the numbers instead. Reread " + CACHE + ".",
        cause="Your count is how many values the cache holds: the bytes each value takes are left out.",
    ),
)
