"""What a misconception is, and the building blocks the exercises' misconceptions are written with.

Each `Misconception` has a stable id, the exercises it applies to, a short teaching message that
points at the chapter's section, and its mutants: `Reference` (grader.diagnosis.reference) with
one step done wrong, exactly as a student's code would do it. Each exercise's package declares the
misconceptions first seen in it, in `grader/catalog/<stem>/misconceptions.py` as `MISCONCEPTIONS`;
`grader.diagnosis.misconceptions` gathers them into the catalogue.
"""

from dataclasses import dataclass, field

import torch

from grader.diagnosis.reference import Reference

# the chapter's sections the messages send a student to reread
SCALE = "'Why divide by √d_k?'"
MASKING = "'Causal masking: no peeking at the future'"
SOFTMAX = "'Step 4 — Softmax: turn scores into weights'"
WALKTHROUGH = "'Implementation walkthrough in PyTorch'"
GQA = "'Grouped-query and multi-query attention'"
CACHE = "'The KV cache: a preview'"
HEADS = "'What heads learn'"
PREVIOUS = "'Previous-token heads and positional heads'"
INDUCTION = "'Induction heads'"
PICTURES = "'Attention patterns as pictures'"
COST = "'The cost: attention is quadratic in sequence length'"


@dataclass(frozen=True)
class Misconception:
    """A mistake students make, the wrong output it causes, and what to reread.

    `mutants`: one or more ways of writing the mistake, each a dict of `Reference` steps overridden.
    `includes`: ids whose wrong outputs this mistake also produces (a softmax without the max
    subtraction also gives NaN on a fully masked row): when both are found, only this one is named.
    `edits`: per exercise number, (old, new) replacements that turn the solution into this mistake.
    `principle` and `cause`: the hint ladder's first and third levels (grader.diagnosis.hints); the
    `message` is its last, the remedy.
    """

    id: str
    exercises: tuple
    message: str
    mutants: tuple
    edits: dict = field(default_factory=dict)
    includes: tuple = ()
    principle: str = ""  # what is violated, in the chapter's terms, and the section to reread: no code, no fix
    cause: str = ""  # the mistake named, without the remedy

    def mutant_classes(self):
        """The mutants, as subclasses of Reference."""
        return [type(f"Mutant_{self.id.replace('-', '_')}", (Reference,), steps) for steps in self.mutants]


def masked_fill_with(value, added=False):
    """apply_mask filling masked scores with `value` (a number, or a function of the dtype), or with
    `added`, adding it to them (an additive mask, as Hugging Face's models build theirs)."""
    def apply_mask(self, scores, mask):
        fill = value(self.dtype) if callable(value) else value
        return scores + (~mask).to(scores.dtype) * fill if added else scores.masked_fill(~mask, fill)
    return {"apply_mask": apply_mask}


def qkv_order(order):
    return {"order_qkv": lambda self, parts: [parts[i] for i in order] if len(parts) == 3 else parts}


def softmax_dividing(shift, guard):
    """softmax that divides e^(x - max) (or e^x: unstable) by its sum: NaN (0/0, or -inf - -inf) on an
    all -inf slice, unless `guard` divides by 1 where the sum is 0."""
    def softmax(self, x, dim=-1):
        e = torch.exp(x - x.amax(dim=dim, keepdim=True) if shift else x)
        total = e.sum(dim=dim, keepdim=True)
        return e / (total.masked_fill(total == 0, 1.0) if guard else total)
    return {"softmax": softmax}


def student_exp(reference, x):
    """e^x in the dtype the student computed in: a mistake that raises e to large powers overflows in
    float32 long before float64."""
    return torch.exp(x.to(reference.dtype)).to(x.dtype)


def stale_online_softmax(reference, x, block_size):
    """online_softmax writing each block out with the running max and sum of that moment."""
    m = reference.running_max_start(x[..., :1])
    l, out = torch.zeros_like(m), []
    for start in reference.block_starts(x.size(-1), block_size):
        block = x[..., start:start + block_size]
        m_new = reference.update_max(m, block)
        l, m = reference.running_sum(l, *reference.block_exponentials(block, m, m_new)), m_new
        out.append(reference.normalise(torch.exp(block - reference.exponent_shift(m)), l))
    return torch.cat(out, dim=-1) if out else torch.zeros_like(x)


def head_average_by(average, kinds=("previous_token", "induction")):
    """head_average done as `average(weights)` for the scores of these kinds (a student may make the
    mistake in one function or in both)."""
    return {"head_average": lambda self, weights, kind: average(weights) if kind in kinds
            else weights.mean(dim=(0, 2))}


def in_one_or_both(average):
    return tuple(head_average_by(average, kinds) for kinds in (("previous_token",), ("induction",),
                                                        ("previous_token", "induction")))
