"""The eight exercises as data: one per step of the chapter, in the chapter's order."""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    """One step of the chapter: the student's file, what it defines, where the chapter explains it."""

    number: int
    stem: str  # file name without .py, shared by exercises/, solutions/ and notebooks
    title: str
    section: str  # the chapter section a stuck student should reread
    names: tuple  # what the student's file must define

    @property
    def id(self):
        return f"exercise{self.number}"

    @property
    def file_name(self):
        return f"{self.stem}.py"


EXERCISES = (
    Exercise(1, "exercise1_projection", "Project: queries, keys and values",
             "Step 1 — Project: make a query, keys and values", ("project", "fused_project")),
    Exercise(2, "exercise2_scoring", "Score every key",
             "Step 2 — Score every key", ("attention_scores",)),
    Exercise(3, "exercise3_scaling", "Scale by √d_k",
             "Why divide by √d_k?", ("scale_scores", "scaled_scores")),
    Exercise(4, "exercise4_masking", "Causal and padding masks",
             "Causal masking: no peeking at the future", ("causal_mask", "apply_mask", "padding_mask")),
    Exercise(5, "exercise5_softmax", "Softmax and scaled dot-product attention",
             "Step 4 — Softmax: turn scores into weights", ("softmax", "scaled_dot_product_attention")),
    Exercise(6, "exercise6_multihead", "Multi-head attention",
             "Multi-head attention", ("split_heads", "merge_heads", "MultiHeadAttention")),
    Exercise(7, "exercise7_gqa", "Grouped-query attention",
             "Grouped-query and multi-query attention", ("repeat_kv", "GroupedQueryAttention")),
    Exercise(8, "exercise8_kv_cache", "The KV cache",
             "The KV cache: a preview", ("kv_cache_bytes", "KVCache", "CachedGroupedQueryAttention")),
)

# The section titles of the course's attention chapter, in its order: what the exercises, their
# hints, the notebooks' introductions and the diagnoses may send a student to reread. (The chapter
# itself is not part of the kit; tests check every reference against this list.)
CHAPTER_SECTIONS = (
    "The problem: a token's meaning depends on context",
    "The library analogy: query, key, value",
    "Anatomy of attention: one token's point of view",
    "Step 1 — Project: make a query, keys and values",
    "Step 2 — Score every key",
    "Step 3 — Scale",
    "Step 4 — Softmax: turn scores into weights",
    "Step 5 — Weighted sum of values",
    "The matrix form",
    "Why divide by √d_k?",
    "Causal masking: no peeking at the future",
    "Multi-head attention",
    "Splitting the model width into heads",
    "What heads learn",
    "Previous-token heads and positional heads",
    "Induction heads",
    "Attention patterns as pictures",
    "The cost: attention is quadratic in sequence length",
    "The KV cache: a preview",
    "Grouped-query and multi-query attention",
    "Implementation walkthrough in PyTorch",
    "Common confusions",
    "Practice",
    "Further reading",
)

_BY_NUMBER = {exercise.number: exercise for exercise in EXERCISES}


class UnknownExercise(LookupError):
    """A name that is not one of the eight exercises."""


def find(name):
    """'exercise3', '3', 'ex3' or 'exercise3_scaling' -> the exercise; UnknownExercise otherwise."""
    key = name.strip().lower()
    match = re.fullmatch(r"(?:ex(?:ercise)?)?(\d+)(_\w+)?", key)
    exercise = _BY_NUMBER.get(int(match.group(1))) if match else None
    if exercise is None or (match.group(2) and key != exercise.stem):
        raise UnknownExercise(name)
    return exercise


def for_suite(file_name):
    """The exercise a suite file belongs to, by its name: test_exercise3*.py -> exercise3."""
    match = re.match(r"test_exercise(\d+)", file_name)
    return _BY_NUMBER.get(int(match.group(1))) if match else None
