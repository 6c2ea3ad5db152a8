"""Similarity leads for `class-report --similarity`: pairs of students for an instructor to look at,
never a verdict, and never shown outside the class report (not in a student's page nor the gradebook).

Two kinds of lead:
- code: winnowed fingerprints of each exercise's file by copydetect (the optional extra
  `lumen-attention-kit[similarity]`; its tokenizer renames every variable, so renaming hides
  nothing, and k-grams are local, so reordering lines hides little). The stub's fingerprints are
  boilerplate, and so are those in more than `COMMON_SHARE` of the class's files, and at least
  `COMMON_FLOOR` + 1 (the obvious answer of a short exercise, a corpus file many handed in, as
  MOSS's -m does): what is left is what only a few students wrote.
  A pair is listed when the share of their own code that they have in common is at least
  `MIN_SIMILARITY` over at least `MIN_TOKENS` tokens, the most similar first.
- misconceptions: pairs who share at least `MIN_SHARED_RARE` rare misconceptions (shown by at most
  `RARE_SHARE` of the graded students).
"""

import bisect
import io
import itertools
from collections import Counter, defaultdict

NOISE = 12  # tokens: k, the shortest match that counts (copydetect's noise threshold)
GUARANTEE = 16  # tokens: a match this long is always found (its guarantee threshold)
COMMON_SHARE = 0.05  # a fingerprint in more of the class's files than this is the class's, not a pair's
COMMON_FLOOR = 3  # ... and in more files than this
MIN_SIMILARITY = 0.6
MIN_TOKENS = 40
RARE_SHARE = 0.05
MIN_SHARED_RARE = 2
MAX_PAIRS = 50
EVIDENCE_LINES = 20


def available():
    """Whether copydetect (the optional extra) can be imported."""
    try:
        import copydetect  # noqa: F401
    except ImportError:
        return False
    return True


def find(graded, shows, who, sources):
    """{"code": [...] or None, "code_note": why not, "misconceptions": [...]} for the graded students;
    `sources`: (their files {exercise id: {student: text}}, the stubs {exercise id: text}), or None."""
    leads = {"code": None, "code_note": None, "misconceptions": rare_pairs(shows, who, len(graded))}
    if sources is None:
        leads["code_note"] = "no --submissions folder given: the code was not compared"
    elif not available():
        leads["code_note"] = ("copydetect is not installed: pip install 'lumen-attention-kit[similarity]' to "
                              "compare the code")
    else:
        leads["code"] = code_pairs(*sources, who)
    return leads


def rare_pairs(shows, who, graded_count):
    """Pairs of students sharing at least MIN_SHARED_RARE rare misconceptions, most shared first."""
    counts = Counter(key for shown in shows.values() for key in shown)
    limit = max(2, RARE_SHARE * graded_count)
    rare = defaultdict(set)
    for name, shown in shows.items():
        for key in shown:
            if counts[key] <= limit:
                rare[name].add(key)
    pairs = []
    for a, b in itertools.combinations(sorted(rare, key=lambda n: who.label[n]), 2):
        shared = rare[a] & rare[b]
        if len(shared) >= MIN_SHARED_RARE:
            pairs.append({"students": [who.label[a], who.label[b]], "shared": sorted(shared),
                          "class_count": {key: counts[key] for key in sorted(shared)}})
    pairs.sort(key=lambda p: (-len(p["shared"]), p["students"]))
    return pairs[:MAX_PAIRS]


def _fingerprint(code, boilerplate):
    from copydetect import CodeFingerprint

    return CodeFingerprint("submission.py", NOISE, GUARANTEE - NOISE + 1, boilerplate=boilerplate,
                           fp=io.StringIO(code))


def code_pairs(files, stubs, who):
    """Pairs of students whose own code (beyond the stub and what many in the class wrote alike) is
    alike, most similar first, with the lines they share side by side. `files`: {exercise id:
    {student: text}}; `stubs`: {exercise id: the stub's text}."""
    from copydetect import compare_files

    shared = defaultdict(lambda: {"tokens": 0, "own": [0, 0], "evidence": None})
    for exercise_id, sources in files.items():
        sources = {name: code for name, code in sources.items() if code.strip()}
        if len(sources) < 2:
            continue
        stub = stubs.get(exercise_id)
        boilerplate = sorted(_fingerprint(stub, []).hashes) if stub else []
        first = {name: _fingerprint(code, boilerplate) for name, code in sources.items()}
        spread = Counter(h for fingerprint in first.values() for h in fingerprint.hashes)
        common = {h for h, n in spread.items() if n > max(COMMON_FLOOR, COMMON_SHARE * len(sources))}
        prints = first if not common else {name: _fingerprint(code, boilerplate + sorted(common))
                                           for name, code in sources.items()}
        holders = defaultdict(set)
        for name, fingerprint in prints.items():
            for h in fingerprint.hashes:
                holders[h].add(name)
        candidates = {tuple(sorted(pair)) for names in holders.values() for pair in itertools.combinations(names, 2)}
        for a, b in candidates:
            tokens, _, slices = compare_files(prints[a], prints[b])
            if not tokens:
                continue
            pair = shared[(a, b)]
            pair["tokens"] += int(tokens)
            pair["own"][0] += prints[a].token_coverage
            pair["own"][1] += prints[b].token_coverage
            if pair["evidence"] is None or tokens > pair["evidence"]["tokens"]:
                pair["evidence"] = {"exercise": exercise_id, "tokens": int(tokens),
                                    "lines": [_lines(sources[a], slices[0], who), _lines(sources[b], slices[1], who)]}
    leads = []
    for (a, b), pair in shared.items():
        own = min(pair["own"]) or 1
        similarity = min(1.0, pair["tokens"] / own)
        if similarity >= MIN_SIMILARITY and pair["tokens"] >= MIN_TOKENS:
            leads.append({"students": sorted([who.label[a], who.label[b]]), "similarity": round(similarity, 3),
                          "tokens": pair["tokens"], "evidence": pair["evidence"]})
    leads.sort(key=lambda lead: (-lead["similarity"], -lead["tokens"], lead["students"]))
    return leads[:MAX_PAIRS]


def _lines(source, slices, who):
    """The lines of `source` that the copied character ranges touch, scrubbed of names. Each range finds its
    first line by bisection: a file of many ranges costs its lines, not their product (round 72's a06)."""
    lines = source.splitlines()
    stops = list(itertools.accumulate(len(line) for line in source.splitlines(keepends=True)))  # each line's end
    touched = set()
    for start, end in zip(*slices):
        number = bisect.bisect_right(stops, int(start))  # the first line ending after the range starts
        while number < len(stops) and (stops[number - 1] if number else 0) < int(end):
            touched.add(number)
            number += 1
    return [who.scrub(lines[n]) for n in sorted(touched) if n < len(lines)][:EVIDENCE_LINES]
