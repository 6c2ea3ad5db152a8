"""The exercise 8 suite (the KV cache) grades right and wrong submissions as it should."""

from conftest import EXERCISES, SOLUTIONS, SUBMISSIONS, failed_tests, failures
from test_diagnoses import diagnosed, graded

FOLDER = SUBMISSIONS / "exercise8"

BYTES = {"test_kv_cache_bytes_llama2_7b", "test_kv_cache_bytes_cases"}
CACHE = {"test_kvcache_update_returns_everything", "test_kvcache_len", "test_kvcache_reset",
         "test_kvcache_full_raises_value_error", "test_kvcache_len_counts_tokens_whatever_their_values",
         "test_kvcache_update_writes_into_its_storage", "test_kvcache_reset_keeps_its_storage"}
MODULE = {"test_cached_gqa_without_cache", "test_cached_gqa_chunked", "test_cached_gqa_other_head_counts",
          "test_cached_gqa_float64", "test_cached_gqa_reset_between_sequences", "test_cached_gqa_input_not_modified",
          "test_cached_gqa_gradients", "test_cached_gqa_trains_through_its_cache", "test_cached_gqa_on_the_inputs_device"}
HALF = {"test_kvcache_half_precision", "test_cached_gqa_half_precision"}
# every test that feeds a sequence in several calls through one cache
AFTER_A_CACHED_TOKEN = {
    "test_cached_gqa_chunked[cpu-token-by-token]", "test_cached_gqa_chunked[cpu-3+1+5]",
    "test_cached_gqa_chunked[cpu-2+2+2+2+1]", "test_cached_gqa_other_head_counts[MQA-4q-1kv]",
    "test_cached_gqa_other_head_counts[MHA-5q-5kv]", "test_cached_gqa_float64[cpu]",
    "test_cached_gqa_reset_between_sequences", "test_cached_gqa_half_precision[cpu]",
}


def failing(result):
    """The full names (parameters included) of the tests that failed on their own (conftest.failures)."""
    return {t.name for t in failures(result)}


def message(result, name):
    return next(t.message for t in result.tests if t.name == name)


def test_solution_scores_full_marks(grade):
    result = graded(grade, 8, SOLUTIONS / "exercise8_kv_cache.py")
    assert failing(result) == set()
    assert result.passed and result.score == result.max_score
    assert 15 <= result.max_score <= 40
    assert {t.name.split("[")[0] for t in result.tests} == BYTES | CACHE | MODULE | HALF


def test_stub_fails_every_test(grade):
    assert failed_tests(graded(grade, 8, EXERCISES / "exercise8_kv_cache.py")) == sorted(BYTES | CACHE | MODULE | HALF)


def test_kv_cache_bytes_without_the_factor_2(grade):
    result = graded(grade, 8, FOLDER / "wrong_bytes_no_factor2.py")
    assert failed_tests(result) == sorted(BYTES)
    assert len(failing(result)) == 4
    text = message(result, "test_kv_cache_bytes_llama2_7b")
    assert "returned 1073741824, expected 2,147,483,648: the cache holds 2 (keys and values) × n_layers" in text


def test_kv_cache_bytes_must_be_an_int(grade):
    source = (SOLUTIONS / "exercise8_kv_cache.py").read_text()
    as_float = source.replace("return 2 * n_layers * n_kv_heads", "return 2.0 * n_layers * n_kv_heads")
    assert as_float != source
    result = grade(8, as_float)
    assert failed_tests(result) == sorted(BYTES)
    assert "returned the float 2147483648.0, expected an int" in message(result, "test_kv_cache_bytes_llama2_7b")
    assert diagnosed(result) == ["cache-bytes-not-whole"]  # the right number, of the wrong type: a named cause


def test_a_table_of_the_suites_own_calls_is_no_count(grade):
    """Round 77's a04, in exercise 8: the answers of the suite's four calls, which its messages print, looked up;
    one call of each test at sizes drawn anew at each grading finds no answer there."""
    table = """
_TABLE = {(32, 32, 128, 4096, 1, 2): 2147483648, (80, 8, 128, 4096, 1, 2): 1342177280,
          (32, 32, 128, 4096, 32, 2): 68719476736, (6, 5, 96, 1000, 3, 4): 69120000}


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return _TABLE.get((n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value), 0)
"""
    result = grade(8, (SOLUTIONS / "exercise8_kv_cache.py").read_text() + table)
    assert failed_tests(result) == sorted(BYTES)
    assert "returned 0, expected" in message(result, "test_kv_cache_bytes_llama2_7b")


def test_cache_that_ignores_the_past(grade):
    result = graded(grade, 8, FOLDER / "wrong_cache_ignores_past.py")
    # one call on an empty cache (or none at all) is right; every later call is wrong
    assert failing(result) == AFTER_A_CACHED_TOKEN
    text = message(result, "test_cached_gqa_chunked[cpu-3+1+5]")
    assert "call 2 (tokens 3..3, 3 already cached) is wrong at [0, 0, 0]" in text
    assert "ALL the keys and values cache.update(k, v) returns" in result.diagnoses[0]["message"]


def test_causal_mask_in_the_top_left_corner(grade):
    result = graded(grade, 8, FOLDER / "wrong_mask_top_left.py")
    # one token at a time hides it (that code uses no mask for T_new = 1): T_new > 1 after a cache shows it
    assert failing(result) == AFTER_A_CACHED_TOKEN - {"test_cached_gqa_chunked[cpu-token-by-token]"}
    text = message(result, "test_cached_gqa_chunked[cpu-3+1+5]")
    assert "call 3 (tokens 4..8, 4 already cached)" in text
    assert "wrong (top-left) corner" in result.diagnoses[0]["message"]


def test_update_that_returns_only_the_new_tokens(grade):
    result = graded(grade, 8, FOLDER / "wrong_update_returns_new.py")
    assert failing(result) == (
        {"test_kvcache_update_returns_everything[cpu-float32]", "test_kvcache_update_returns_everything[cpu-float64]",
         "test_kvcache_full_raises_value_error", "test_cached_gqa_input_not_modified",
         "test_cached_gqa_on_the_inputs_device[cpu]", "test_kvcache_half_precision[cpu]",
         "test_kvcache_update_writes_into_its_storage"} | AFTER_A_CACHED_TOKEN  # its 1 token after 3 crashes (the
    )  # storage rule's module steps too: a step that raises there fails the rule, round 67's a03)
    text = message(result, "test_kvcache_update_returns_everything[cpu-float32]")
    assert text == ("keys from cache.update(k, v) with 1 new token after 3 (a KVCache of float32) have shape "
                    "(4, 2, 1, 3), expected (4, 2, 4, 3) (axis -2 is 1 not 4)")
    assert "it must return ALL the keys and values cached so far" in result.diagnoses[0]["message"]


def test_reset_that_keeps_the_length(grade):
    result = graded(grade, 8, FOLDER / "wrong_reset_keeps_length.py")
    assert failing(result) == {"test_kvcache_reset", "test_cached_gqa_reset_between_sequences"}
    assert "after cache.reset() len(cache) is 4, expected 0" in message(result, "test_kvcache_reset")


def test_full_cache_changed_before_raising(grade):
    result = graded(grade, 8, FOLDER / "wrong_full_check_after_append.py")
    assert failing(result) == {"test_kvcache_full_raises_value_error"}
    assert "len(cache) is 6, expected 3: raise the ValueError before changing anything" in message(
        result, "test_kvcache_full_raises_value_error")


def test_len_that_counts_non_zero_slots(grade):
    result = graded(grade, 8, FOLDER / "wrong_len_counts_nonzero_keys.py")
    assert failing(result) == {"test_kvcache_len_counts_tokens_whatever_their_values"}
    assert ("after updates of 0 and then 3 tokens (3 of all-zero keys and values) len(cache) is 0, expected 3: a token "
            "whose key is all zeros is cached all the same") in message(
        result, "test_kvcache_len_counts_tokens_whatever_their_values")


def test_update_that_concatenates(grade):
    result = graded(grade, 8, FOLDER / "wrong_update_concatenates.py")
    assert failing(result) == {"test_kvcache_update_writes_into_its_storage"}
    assert ("cache.update(k, v) with 1 new token after 12 (a KVCache(2, 3, 4, max_len=32)) allocated a tensor of shape "
            "(2, 3, 13, 4) (1,248 bytes; the 12 cached keys take 1,152): each update makes something as large as "
            "the cache, a copy of it (torch.cat, clone)") in \
        message(result, "test_kvcache_update_writes_into_its_storage")
    assert diagnosed(result) == ["cache-reallocated"]


def test_a_cache_that_returns_a_copy_is_caught_too(grade):
    """Storage kept, but update returns torch.cat of the past and the new tokens: still a copy per update."""
    source = (SOLUTIONS / "exercise8_kv_cache.py").read_text()
    copied = source.replace("        return self.k[:, :, :end], self.v[:, :, :end]  # views, (B, Hkv, T, dh)",
                            "        return (torch.cat([self.k[:, :, :start], k], 2),\n"
                            "                torch.cat([self.v[:, :, :start], v], 2))")
    assert copied != source
    result = grade(8, copied)
    assert failing(result) == {"test_kvcache_update_writes_into_its_storage"}


def test_full_cache_must_raise_value_error(grade):
    source = (SOLUTIONS / "exercise8_kv_cache.py").read_text()
    no_check = source.replace("        if end > self.max_len:\n            raise ValueError(", "        if False:\n"
                              "            raise ValueError(")
    assert no_check != source
    result = grade(8, no_check)
    assert failing(result) == {"test_kvcache_full_raises_value_error"}
    assert "raised RuntimeError, expected ValueError" in message(result, "test_kvcache_full_raises_value_error")
    off_by_one = source.replace("        if end > self.max_len:", "        if end >= self.max_len:")
    assert off_by_one != source
    result = grade(8, off_by_one)
    assert "filling a KVCache(max_len=5) exactly" in message(result, "test_kvcache_full_raises_value_error")


def test_new_tokens_that_see_each_others_future(grade):
    source = (SOLUTIONS / "exercise8_kv_cache.py").read_text()
    unmasked = source.replace("        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T_new, dh)",
                              "        y, _ = scaled_dot_product_attention(q, k, v)  # (B, H, T_new, dh)")
    assert unmasked != source
    result = grade(8, unmasked)
    assert "test_cached_gqa_chunked[cpu-token-by-token]" not in failing(result)
    assert " is wrong at " in message(result, "test_cached_gqa_without_cache[cpu]")
    assert "call 1 (tokens 0..1, 0 already cached) is wrong at" in message(
        result, "test_cached_gqa_chunked[cpu-2+2+2+2+1]")
    assert diagnosed(result) == ["causal-mask-missing"]
