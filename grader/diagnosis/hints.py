"""The hint ladder of one diagnosis: what it teaches first, and what it tells last.

Levels, in order: 1 `principle` (what is violated, in the chapter's terms, and the section to
reread), 2 `example` (the smallest call that still shows the mistake, found in the confined child:
the diagnosis dict's "example"), 3 `cause` (the mistake named), 4 `remedy` (the fix). A catalogued
misconception has all four; a structural finding (no catalogue entry) has levels 1 to 3, its cause
being the analyser's own words. Which level a student sees is chosen later, from the course's
policy and the student's attempts; this module only says what each level holds.
"""

from grader.diagnosis import misconceptions

KINDS = ("principle", "example", "cause", "remedy")


def ladder(diagnosis):
    """The levels `diagnosis` (a report's diagnosis dict: id, message, ids, example) has, in order:
    [{"level": n, "kind": kind, "text": text}], only those with a text."""
    named = [misconceptions.BY_ID[i] for i in diagnosis.get("ids") or [diagnosis["id"]] if i in misconceptions.BY_ID]
    example = (diagnosis.get("example") or {}).get("text", "")
    if named:
        texts = (_joined(m.principle for m in named), example, _joined(m.cause for m in named), diagnosis["message"])
    else:
        texts = ("", example, diagnosis["message"], "")
    return [{"level": n, "kind": kind, "text": text} for n, (kind, text) in enumerate(zip(KINDS, texts), 1) if text]


def _joined(texts):
    """One text per misconception named, "either … or …" for two; empty if any is missing."""
    texts = list(texts)
    if not all(texts):
        return ""
    return texts[0] if len(texts) == 1 else "Either " + texts[0] + "; or " + texts[1]
