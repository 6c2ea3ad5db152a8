"""Prove `lumen_ref.heads` (exercise 9's answer key) against the float64 oracle and by what its
hand-set model must do: a previous-token head in layer 0, an induction head in layer 1, and the
second half of a repeated sequence predicted from the first."""

import numpy as np
import pytest
import torch

from grader import oracle
from lumen_ref import heads

F64, F32 = torch.float64, torch.float32


def causal_weights(generator, B, H, L, dtype=F64, scale=2.0):
    """Random attention weights (B, H, L, L): a causal softmax of random scores."""
    scores = torch.randn(B, H, L, L, generator=generator, dtype=F64) * scale
    scores = scores.masked_fill(~torch.ones(L, L, dtype=torch.bool).tril(), float("-inf"))
    return scores.softmax(-1).to(dtype)


@pytest.mark.parametrize("dtype", [F64, F32], ids=["f64", "f32"])
@pytest.mark.parametrize("B, H, seq_len", [(3, 4, 5), (1, 2, 1), (2, 5, 8)])
def test_scores_match_the_oracle(dtype, B, H, seq_len):
    g = torch.Generator().manual_seed(B * 100 + H * 10 + seq_len)
    pattern = causal_weights(g, B, H, 2 * seq_len, dtype)
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == F64 else dict(rtol=1e-6, atol=1e-7)
    for got, want in ((heads.previous_token_score(pattern), oracle.previous_token_score(pattern)),
                      (heads.induction_score(pattern, seq_len), oracle.induction_score(pattern, seq_len))):
        assert got.dtype == dtype and got.shape == (H,)
        np.testing.assert_allclose(got.double().numpy(), want, **tol)


def test_find_heads_matches_the_oracle_on_planted_heads():
    g = torch.Generator().manual_seed(3)
    T, L = 6, 12
    patterns = [causal_weights(g, 2, 3, L), causal_weights(g, 2, 4, L)]
    patterns[0][:, 2] = torch.eye(L, dtype=F64).roll(-1, 1).tril()  # key i-1; query 0 reads nothing
    patterns[1][:, 1, T:] = 0
    patterns[1][:, 1, torch.arange(T, L), torch.arange(1, T + 1)] = 1.0  # key i - T + 1
    found = heads.find_heads(patterns)
    assert found == oracle.find_heads(patterns) == {"previous_token": [(0, 2)], "induction": [(1, 1)]}
    assert heads.find_heads(patterns, threshold=1.0) == {"previous_token": [], "induction": []}  # 1.0 is not > 1.0
    assert heads.find_heads([]) == {"previous_token": [], "induction": []}


def test_the_models_patterns_match_the_oracle():
    model = heads.induction_model(vocab_size=11, max_len=14)
    tokens = heads.repeated_tokens(3, 7, 11, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        _, patterns = model(tokens)
    want = oracle.attention_only_patterns(tokens, model.state_dict(), n_heads=3)
    assert len(patterns) == len(want) == 2
    for got, expected in zip(patterns, want):
        assert got.shape == (3, 3, 14, 14)
        np.testing.assert_allclose(got.double().numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", range(5))
def test_the_hand_set_model_has_a_previous_token_and_an_induction_head(seed):
    vocab, T = 40, 9
    model = heads.induction_model(vocab, 2 * T)
    tokens = heads.repeated_tokens(4, T, vocab, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        logits, patterns = model(tokens)
    assert heads.find_heads(patterns) == {"previous_token": [heads.PREVIOUS_TOKEN_HEAD],
                                          "induction": [heads.INDUCTION_HEAD]}
    layer, head = heads.PREVIOUS_TOKEN_HEAD
    assert heads.previous_token_score(patterns[layer])[head] > 0.99
    layer, head = heads.INDUCTION_HEAD
    assert heads.induction_score(patterns[layer], T)[head] > 0.6  # a token seen twice splits its weight
    distinct = [row for row in range(4) if len(set(tokens[row, :T].tolist())) == T]
    predicted = logits.argmax(-1)[distinct, T:-1]  # the second half, each token predicting the next
    assert distinct and torch.equal(predicted, tokens[distinct, T + 1:])


def test_repeated_tokens():
    tokens = heads.repeated_tokens(5, 6, 4, generator=torch.Generator().manual_seed(1))
    assert tokens.shape == (5, 12) and tokens.dtype == torch.int64
    assert torch.equal(tokens[:, :6], tokens[:, 6:]) and 0 <= int(tokens.min()) and int(tokens.max()) < 4
    again = heads.repeated_tokens(5, 6, 4, generator=torch.Generator().manual_seed(1))
    assert torch.equal(tokens, again)
    assert heads.repeated_tokens(2, 3, 7).shape == (2, 6)  # torch's global generator


def test_bad_shapes_raise_value_error():
    with pytest.raises(ValueError, match=r"\(B, H, L, L\)"):
        heads.previous_token_score(torch.rand(2, 5, 5))
    with pytest.raises(ValueError, match=r"\(B, H, L, L\)"):
        heads.induction_score(torch.rand(1, 2, 6, 5), 3)
    with pytest.raises(ValueError, match="L >= 2"):
        heads.previous_token_score(torch.ones(1, 2, 1, 1))
    with pytest.raises(ValueError, match="2 \\* seq_len = 8"):
        heads.induction_score(torch.rand(1, 2, 6, 6), 4)
    with pytest.raises(ValueError, match="2 \\* seq_len"):
        heads.find_heads([torch.rand(1, 2, 7, 7)])
