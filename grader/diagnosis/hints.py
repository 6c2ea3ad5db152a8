"""The hint ladder of one diagnosis: what it teaches first, and what it tells last.

Levels, in order: 1 `principle` (what is violated, in the chapter's terms, and the section to
reread), 2 `example` (the smallest call that still shows the mistake, found in the confined child:
the diagnosis dict's "example"), 3 `cause` (the mistake named), 4 `remedy` (the fix). A catalogued
misconception has all four; a structural finding (no catalogue entry) and a cause (a failing check
whose message names the mistake: a dtype changed, an input changed in place) have levels 1 to 3,
their level 3 being the analyser's or the check's own words. Which level a student sees is chosen
later, from the course's policy and the student's attempts; this module only says what each level holds.
"""

import re

from grader.diagnosis import misconceptions
from grader.diagnosis.mutants import CACHE, GQA, MASKING, SCALE, SOFTMAX, WALKTHROUGH

KINDS = ("principle", "example", "cause", "remedy")

SCORE = "'Step 2 — Score every key'"
REPEATED_BY_ANOTHER_COUNT = ("In grouped-query attention each KV head serves a group of query heads, as many as there "
                             "are query heads per KV head, so it is repeated that many times: the groups together are "
                             "all the query heads. Yours repeats each by another count, so the heads no longer line "
                             "up. Reread " + GQA + ".")
SPLIT = "'Splitting the model width into heads'"
MATRIX = "'The matrix form'"
LIBRARY = "'The library analogy: query, key, value'"

# Level 1 of the structural analysers' findings (grader.diagnosis.analysers), by key family: a key
# gets the entry of the longest key here it starts with. A finding in one item of a returned tuple
# ("weights:not-normalised") is read without the item's label.
STRUCTURAL = {
    "factor:": "Each step of attention fixes the size of its result: scaled scores spread about 1, weights sum to 1, "
               "a cache's size counts every byte. Yours has the right pattern, but every number is off by one factor, "
               "one of the call's sizes taken once too often or once too rarely. Reread " + MATRIX + ".",
    "divisor:": "Each step scales its scores by exactly one thing: Step 2's raw scores not at all, Step 3 by √d_k, "
                "the standard deviation of a dot product of width d_k (in multi-head attention, each head's own "
                "width), which brings their spread back to about 1. Yours scales them by another quantity. "
                "Reread " + SCALE + ".",
    "divisor:1": "Raw dot products of width d_k spread about √d_k, so in wide heads the softmax turns into a hard "
                 "argmax that cannot learn; the scaling step brings the spread back to about 1 at every width. Yours "
                 "are not scaled at all. Reread " + SCALE + ".",
    "divisor:1/": "Scaling must bring the scores' spread down to about 1: wider heads have larger dot products, so the "
                  "scale makes scores smaller, never larger. Yours makes them larger. Reread " + SCALE + ".",
    "axes:": "Every axis of a result means something (the batch, the heads, the queries, the keys, the features), and "
             "a number is right only in its place. Yours holds the right numbers with its axes in another order. "
             "Reread " + WALKTHROUGH + ".",
    "normalised-over:": "Attention weights are one distribution per query: each query's row, its weights over the "
                        "keys, sums to 1. Yours sum to 1 along another axis. "
                        "Reread " + SOFTMAX + ".",
    "normalised-over:all": "Attention weights are one distribution per query: each query's row, its weights over the "
                           "keys, sums to 1. Yours sum to 1 over the whole tensor at once, so each row gets only a "
                           "share. Reread " + SOFTMAX + ".",
    "not-normalised": "Weights say how much to read from each token: non-negative, and summing to 1 over the keys; "
                      "exponentials alone are not weights yet. Yours are in the right proportions but do not sum to "
                      "1. Reread " + SOFTMAX + ".",
    "softmax-applied": "Each step does one thing: the scores are raw dot products (Step 2), and turning them into "
                       "weights is Step 4. Yours already returns weights. Reread " + SCORE + ".",
    "diagonal-only": "The scores are a matrix: every query against every key, one row per query and one column per "
                     "key. Yours pairs each query with one key only, its own position's. Reread " + MATRIX + ".",
    "scores:view-not-transpose": "Kᵀ turns k's rows into columns: key j's features become column j. Pouring k's "
                                 "numbers, in memory order, into the swapped shape is not the same thing: each column "
                                 "then holds pieces of several keys. Reread " + WALKTHROUGH + ".",
    "mask:inverted": "A mask says where attention is allowed: True means 'may attend' (the past, the real tokens) and "
                     "False means hidden (the future, the padding). In yours, the allowed and the hidden pairs swap "
                     "places. Reread " + MASKING + ".",
    "mask:nothing-masked": "A mask hides some keys from some queries (the future, the padding). In yours, every query "
                           "sees every key. Reread " + MASKING + ".",
    "mask:no-diagonal": "A token may always read itself: query i sees keys 0 .. i, the diagonal included, which also "
                        "guarantees every row at least one finite score. Yours hides the diagonal. "
                        "Reread " + MASKING + ".",
    "mask:diagonal": "The causal mask's edge is the diagonal: query i sees keys 0 .. i, itself included and nothing "
                     "after it. Yours draws the edge elsewhere, letting future tokens through or hiding past ones. "
                     "Reread " + MASKING + ".",
    "mask:diagonal+": "The causal mask's edge is the diagonal: query i sees keys 0 .. i, itself included and nothing "
                      "after it. Yours lets query i see keys after it: the future leaks in. Reread " + MASKING + ".",
    "mask:diagonal-": "The causal mask's edge is the diagonal: query i sees keys 0 .. i, itself included, which also "
                      "guarantees every row at least one finite score. Yours hides keys query i may see, its own among "
                      "them. Reread " + MASKING + ".",
    "mask:upper-triangle": "In a mask, rows are queries and columns are keys: query i may see keys 0 .. i, the past, "
                           "on and below the diagonal. Yours lets each query see its future instead. "
                           "Reread " + MASKING + ".",
    "mask:corner": "New tokens come after the cached ones: with p tokens before them, new token i sits at position "
                   "p + i and sees every earlier key and the new ones up to itself. Yours places the new tokens as if "
                   "nothing came before them. Reread " + CACHE + ".",
    "mask:decode": "With p tokens cached, new token i sits at position p + i: it sees every cached key and the new "
                   "tokens up to itself, never a new token after it. Yours lets it see one key more or one fewer. "
                   "Reread " + CACHE + ".",
    "mask:reversed": "Padding comes after the real tokens: a sequence of length n has its real tokens at positions "
                     "0 .. n-1 and padding after them. Yours keeps the last positions instead. Reread " + MASKING + ".",
    "mask:width": "Positions count from 0: a sequence of length n has exactly n real keys, at positions 0 .. n-1. "
                  "Yours keeps another number of them. Reread " + MASKING + ".",
    "mask:nan-kept": "Masking changes the hidden scores only and leaves the allowed ones exactly as they were; in "
                     "floating point, 0 × ∞ is NaN, so arithmetic with infinities poisons every score it touches. "
                     "Yours turns the allowed scores into NaN. Reread " + MASKING + ".",
    "mask:plus-inf": "A hidden key must get exactly zero weight after the softmax. In yours, the hidden keys take all "
                     "of the weight. Reread " + MASKING + ".",
    "mask:finite-fill": "A hidden key must get exactly zero weight in every row and every dtype, even in a row whose "
                        "every key is hidden: a large finite score is only small next to the others, and alone in its "
                        "row it becomes an equal share. Reread " + MASKING + ".",
    "mask:fill-value": "After the softmax a hidden key must weigh exactly nothing, and the softmax gives each score s "
                       "a weight proportional to e^s, which is 0 for no finite s. In yours, hidden keys keep weight. "
                       "Reread " + MASKING + ".",
    "mask:softmax-dim-2": "Each query reads a blend of the values, so each query's row of weights, one weight per "
                          "key, sums to 1. In yours, the columns sum to 1: each key's weights over the queries. "
                          "Reread " + SOFTMAX + ".",
    "heads:": "In grouped-query attention each KV head serves a group of neighbouring query heads: the first n_rep "
              "query heads share KV head 0, the next n_rep KV head 1, and so on. Yours pairs query heads with KV heads "
              "in another pattern. Reread " + GQA + ".",
    "no-output-projection": "Multi-head attention ends by mixing the heads: their outputs, side by side, go through "
                            "one more learned projection, so that one head's answer can combine with another's. Yours "
                            "stops at the heads side by side. Reread " + SPLIT + ".",
    "split:": "Each head must see whole tokens: head h holds the same d_head columns of every token, and every token "
              "keeps its position. In yours, a head's numbers come from other positions or other columns. "
              "Reread " + WALKTHROUGH + ".",
    "split:strided": "Each head holds one block of d_head adjacent columns of every token: head 0 the first d_head, "
                     "head 1 the next, and so on. Yours gives a head every H-th column instead. "
                     "Reread " + WALKTHROUGH + ".",
    "merge:": "Merging is the heads' concatenation: token l's output is head 0's d_head numbers for token l, then "
              "head 1's, and so on. In yours, a token's output is not its heads' numbers in that order. "
              "Reread " + WALKTHROUGH + ".",
    "fused:": "A fused projection holds W_Q, W_K and W_V side by side, three blocks of columns: q comes from the first "
              "block only, k from the second, v from the third, and the heads are cut from each block afterwards. "
              "Yours reads q, k and v from columns mixed across the blocks. Reread " + WALKTHROUGH + ".",
    "fused:per-head": "A fused projection's output is three blocks side by side, the queries of every head, then "
                      "the keys, then the values; each block is cut into heads afterwards. Yours cuts it into heads "
                      "first, so a head's q, k and v come from the wrong columns. Reread " + WALKTHROUGH + ".",
    "input:": "Each input has its own role (the query, the key and the value; or W_Q, W_K and W_V): yours gives what "
              "the computation gives with one input in the place of another. Reread " + LIBRARY + ".",
    "swapped:": "Several results come back in the order the docstring gives, since the caller unpacks them by "
                "position. Yours are the right values in the wrong order. Reread " + WALKTHROUGH + ".",
    "shape:not-flattened": "A result is its numbers and its shape: the caller expects the axes it was promised. Yours "
                           "has the right numbers in the right order, in more axes than expected. "
                           "Reread " + WALKTHROUGH + ".",
    "shape:squeezed": "A result is its numbers and its shape: an axis of size 1 (one query, one key, a batch of "
                      "one) is still an axis the caller indexes. Yours has the right numbers, with every axis of "
                      "size 1 gone. Reread " + WALKTHROUGH + ".",
    "shape:batch-merged": "A result is its numbers and its shape: the caller indexes the batch and the sequence "
                          "as the axes it handed in. Yours has the right numbers in the right order, with those "
                          "leading axes merged into one. Reread " + WALKTHROUGH + ".",
    "size:": "A result's shape is part of its contract: each axis has the size of one thing the docstring names "
             "(the queries, the keys, one projection's width, the sequence length L), read from the argument that "
             "fixes it. One axis of yours takes its size from something else, which agrees only when the two "
             "happen to be equal. Reread " + WALKTHROUGH + ".",
    "returned-none": "Every function here hands its result back to its caller. Yours ends without handing anything "
                     "back, so whatever it computed is lost. Reread " + WALKTHROUGH + ".",
    "cache:no-mask": "New tokens that arrive together are still a sequence: each sees the cached tokens and the new "
                     "ones up to itself, never a later new token. In yours, a new token sees the ones after it. "
                     "Reread " + CACHE + ".",
    "cache:overwritten": "A cache appends: each update's tokens go after the ones already held, which stay as they "
                         "were. Yours writes the new tokens over the past. Reread " + CACHE + ".",
    "cache:not-advancing": "A cache remembers: after each update it holds every token so far, and its count grows by "
                           "the new tokens. Yours forgets what it held. Reread " + CACHE + ".",
    "cache:returns-new": "What a cache hands back is its whole memory so far: the tokens it held before this update "
                         "and the new ones together, which is what the new tokens attend to. Yours stores and counts "
                         "them all, but hands back only the newest. Reread " + CACHE + ".",
    "cache:whole-storage": "A cache's storage has room for the most tokens it may ever hold, but only the tokens "
                           "stored so far are keys and values; the rest is empty room. Yours hands back the empty "
                           "room too. Reread " + CACHE + ".",
    "len:": "The length of a cache is the number of tokens it holds now: 0 when it is new, growing by each update's "
            "tokens. Yours counts something else. Reread " + CACHE + ".",
    "cache:repeated-before-update": "The cache holds the KV heads as they are, H_kv of them: the grouping into query "
                                    "heads happens after the past is read back, at every step. Yours stores them "
                                    "already grouped, so the cache holds H heads where it has room for H_kv. "
                                    "Reread " + GQA + ".",
    "gqa:kv-not-repeated": "In grouped-query attention there are fewer KV heads than query heads: each KV head must be "
                           "lined up with its whole group of query heads before they meet. In yours, keys or values "
                           "meet the query heads with only H_kv heads. Reread " + GQA + ".",
    "gqa:n-rep-is-n-kv-heads": REPEATED_BY_ANOTHER_COUNT,
    "gqa:n-rep-is-n-heads": REPEATED_BY_ANOTHER_COUNT,
    "scores:k-transposed-": "Every query meets every key: the scores' last two axes are the queries and the keys, "
                            "so only k's last two axes, tokens and features, trade places; its batch and head axes "
                            "stay where they are. Yours moves another axis. Reread " + SCORE + ".",
    "softmax:without-keepdim": "Each row's maximum and sum belong to that row: they must line up with it, one per "
                               "row, when they are subtracted or divided. Yours loses the axis they were taken "
                               "over, so they line up with the wrong entries. Reread " + SOFTMAX + ".",
    "shape:flattened-to-1d": "A result is its numbers and its shape: the caller expects the axes it was promised. "
                             "Yours comes back as one long row of numbers. Reread " + WALKTHROUGH + ".",
    "crash:dim-from-the-front": "A step of attention is one formula whatever comes before the last axes: no batch, "
                                "a batch, a batch and heads. Yours names an axis by its place from the front, which "
                                "moves when batch dims are added. Reread " + WALKTHROUGH + ".",
    "crash:shape-unpacked": "A step of attention is one formula whatever comes before the last axes: no batch, a "
                            "batch, a batch and heads. Yours takes its sizes as a fixed list of all the axes, which "
                            "only one number of dims fits. Reread " + WALKTHROUGH + ".",
    "scores:outer-over-batch": "Every query meets every key of its own sequence: the scores pair the tokens within "
                               "one sequence, and the sequences of a batch never meet. Yours scores each sequence's "
                               "queries against every sequence's keys. Reread " + SCORE + ".",
    "crash:T-reverses-all-dims": "Every query meets every key: only k's last two axes, tokens and features, trade "
                                 "places for the scores. On a batched k yours reverses every axis, so the shapes no "
                                 "longer meet. Reread " + SCORE + ".",
    "crash:custom-backward-shapes": "A gradient has the shape of what it is the gradient of, and the backward pass "
                                    "of a product sends the upstream gradient through the other factor, turned so "
                                    "that the shapes meet. Yours sends it through unturned, which only fits while "
                                    "the sizes happen to be equal. Reread " + WALKTHROUGH + ".",
    "crash:bmm-3d-only": "The scores are one formula whatever comes before the last two axes: no batch, a batch, "
                         "a batch and heads. Yours uses a product that accepts exactly one batch axis, so every "
                         "other layout fails. Reread " + SCORE + ".",
    "crash:mm-2d-only": "A step of attention is one formula whatever comes before the last two axes: no batch, a "
                        "batch, a batch and heads. Yours uses a product that accepts two plain matrices only, so "
                        "every batched input fails. Reread " + WALKTHROUGH + ".",
    "crash:einsum-fixed-dims": "A step of attention is one formula whatever comes before the last two axes: no "
                               "batch, a batch, a batch and heads. Yours spells out every axis, so it accepts one "
                               "layout only. Reread " + WALKTHROUGH + ".",
    "crash:split-size-as-count": "The fused output is three blocks side by side, each as wide as one projection: "
                                 "it is cut into three pieces of that width. Yours cuts it into pieces of another "
                                 "width, and so into another number of pieces. Reread " + WALKTHROUGH + ".",
    "crash:in-place-needed-by-autograd": "Training goes back through every step: the backward pass reads again the "
                                         "tensors each step used. Yours writes over one of them before that, so its "
                                         "old value, which the gradient needs, is gone. Reread " + WALKTHROUGH + ".",
    "softmax:global-max": "A softmax is taken slice by slice: each slice is shifted by its own largest entry, "
                          "which keeps its exponentials between 0 and 1 without changing its weights. Yours shifts "
                          "every slice by one number, so a slice far below it loses all its weight. "
                          "Reread " + SOFTMAX + ".",
    "softmax:max-clamped-at-zero": "A softmax is taken slice by slice: each slice is shifted by its own largest "
                                   "entry, which keeps its exponentials between 0 and 1 without changing its weights. "
                                   "Yours shifts some slices by another number than their own largest entry, so a "
                                   "slice far below it loses all its weight. Reread " + SOFTMAX + ".",
    "mask:causal-by-default": "A mask is the caller's to give: with none, every query reads every key, as in an "
                              "encoder or a summary of a whole text. Yours hides keys no one asked it to hide. "
                              "Reread " + MASKING + ".",
    "crash:view-not-contiguous": "A shape is a way of reading numbers as they lie in memory: after two axes trade "
                                 "places (the heads' and the tokens' when heads merge, or a batch its caller "
                                 "transposed) they no longer lie in the order of the shape, and must be gathered "
                                 "before they can be read as another shape. Yours reads them as they lie. Reread "
                                 + WALKTHROUGH + ".",
    "crash:dtype-made-float32": "A step answers in the precision it was given, and every tensor it makes joins its "
                                "inputs in that precision. Yours brings in a tensor of another precision, and the "
                                "two do not mix. Reread " + WALKTHROUGH + ".",
    "crash:size-not-int": "Sizes count things (heads, tokens, numbers per head), so each is a whole number: a tensor "
                          "cannot have 3.0 heads. Yours computes a size as a number with a fraction. "
                          "Reread " + WALKTHROUGH + ".",
    "crash:bool-index-no-broadcast": "One mask holds for every sequence and head: a (L, L) causal mask is stretched "
                                     "over the dims in front, as arithmetic stretches it. Yours applies it with an "
                                     "operation that does not stretch it. Reread " + MASKING + ".",
    "crash:t-on-batched": "The scores are one formula whatever comes before the last two axes: no batch, a batch, a "
                          "batch and heads. Yours uses an operation made for one matrix alone, so every batched "
                          "layout fails. Reread " + SCORE + ".",
    "crash:view-size-mismatch": "A view gives the same numbers another shape: nothing is added or lost, so the new "
                                "sizes must multiply to the count the tensor holds. Yours asks for a shape of another "
                                "size. Reread " + WALKTHROUGH + ".",
    "crash:out-argument": "Attention is learned: training sends the loss's gradient back through every step, so each "
                          "step's result must stay in autograd's record of how it was computed. Yours writes its "
                          "result where that record cannot follow. Reread " + WALKTHROUGH + ".",
}

# Level 1 of the causes the grading steps name (grader.grading.compare, testkit); the exercises declare
# their own beside their misconceptions (misconceptions.CAUSES).
CAUSES = {
    "dtype-changed": "A step of attention answers in the precision it was given: a model in float16 or bfloat16 runs "
                     "every step in it, and a result in another precision changes what the next layer computes (or "
                     "makes it fail). Yours comes back in another precision than its input. "
                     "Reread " + WALKTHROUGH + ".",
    "mask-not-bool": "A mask answers yes or no for each (query, key) pair: True where attention is allowed, False "
                     "where it is hidden. Yours holds numbers instead, and the opposite of a number is not 'the other "
                     "pairs'. Reread " + WALKTHROUGH + ".",
    "device-changed": "A result lives where its inputs live: a model on a GPU gets its answers on the GPU. Yours comes "
                      "back on another kind of processor than its input. Reread " + WALKTHROUGH + ".",
    "built-on-cpu": "Everything a step makes must live where its inputs live: on a GPU, a tensor made without saying "
                    "where is made on the CPU, and mixing the two fails (or copies data back and forth). Yours makes "
                    "something on the CPU while its inputs are elsewhere. Reread " + WALKTHROUGH + ".",
    "no-gradient": "Attention is learned: the chapter's fourth requirement is that every step be differentiable, so "
                   "that training can send the loss's gradient back through it to everything it was computed from. "
                   "In yours no gradient reaches one input: somewhere on its way to the output the computation "
                   "leaves autograd's record, and the chain of gradients breaks there. "
                   "Reread 'The problem: a token's meaning depends on context'.",
    "peeks-at-the-future": "A language model learns to predict each token from the tokens before it, and it is "
                           "trained on every position at once: each query must be kept from the keys after it, or "
                           "it learns to copy the answer it should predict. In yours, changing a later token changes "
                           "what an earlier one reads. Reread " + MASKING + ".",
    "float32-constant": "A step answers in its inputs' precision, and so does every number it uses on the way: a "
                        "constant kept in float32 carries only about 7 significant digits into a float64 "
                        "computation. All of yours is off by one tiny common factor, the size of float32's rounding "
                        "of a single number. Reread " + WALKTHROUGH + ".",
    "epsilon-in-divisor": "Dividing by a sum is exact: weights divided by their own total sum to exactly 1, and "
                          "nothing needs guarding except a total of zero. In yours the results are slightly too "
                          "small, by an amount that is largest for the smallest totals, as when a small "
                          "constant joins what you divide by. Reread " + SOFTMAX + ".",
    "computes-in-float32": "A step answers in its inputs' precision: a float64 input is computed in float64 all the "
                           "way, or the result carries float32's rounding, about one part in ten million, into "
                           "every later layer. Yours is off by about that much on nearly every value, in both "
                           "directions. Reread " + WALKTHROUGH + ".",
    "kept-from-an-earlier-call": "Each call answers from its own inputs (and a layer's parameters) alone: a model "
                                 "calls the same layer on sequences of every length, an analysis runs the same "
                                 "function on model after model. Yours answers differently after an earlier call: "
                                 "something made for one call stays for the next. Reread " + WALKTHROUGH + ".",
    "parameters-differ": "A layer's learned parameters are part of its design: the chapter's layer learns exactly its "
                         "projections, each of one shape, and nothing more, so that its size is what the chapter "
                         "counts and a checkpoint saved from one such layer loads into another. Yours learns a "
                         "different set. Reread " + WALKTHROUGH + ".",
"state-dict-extra": "A layer's state dict is what a checkpoint saves and loads: the chapter's layer holds its "
                        "learned projections and nothing more, so a checkpoint of one such layer loads into another "
                        "and its size is what the chapter counts. Yours saves something more, which a checkpoint of "
                        "the chapter's layer lacks. Reread " + WALKTHROUGH + ".",
    "gradient-scaled": "Autograd differentiates the steps it recorded, and only those: a model learns from the "
                       "gradient of what the forward pass computed only if every step of it was recorded. Yours "
                       "returns the right values, but its gradients are off by one factor, so some step of the "
                       "values is not the step autograd differentiated. Reread " + WALKTHROUGH + ".",
    "returns-an-input": "A function that returns a new tensor hands its caller something of its own to keep or "
                        "change, while the caller's input stays as it was. Yours hands back memory it was given, "
                        "so a change to the result changes the input too. Reread " + WALKTHROUGH + ".",
    "input-changed-in-place": "A step must leave its inputs as they were: the caller still holds them (the same "
                              "scores, the same x for the next layer, the same tensor for the backward pass), and "
                              "writing over them changes their data too. Yours changes an input. "
                              "Reread " + WALKTHROUGH + ".",
}

# "split_heads(...), merge_heads(...): ", "len(cache): ": where a diagnosis message says the mistake shows
_CALL = r"(?:len\(cache\)|[\w.]+\(\.\.\.\))"
_WHERE = re.compile(rf"^({_CALL}(?:, {_CALL})*): ")


def ladder(diagnosis):
    """The levels `diagnosis` (a report's diagnosis dict: id, message, ids, example) has, in order:
    [{"level": n, "kind": kind, "text": text}], only those with a text."""
    ids = diagnosis.get("ids") or diagnosis["id"].split(" | ")
    named = [misconceptions.BY_ID[i] for i in ids if i in misconceptions.BY_ID]
    example = (diagnosis.get("example") or {}).get("text", "")
    if named and len(named) == len(ids):
        where = _WHERE.match(diagnosis["message"])
        cause = _joined(m.cause for m in named)
        texts = (_joined(m.principle for m in named), example,
                 f"{where.group(1)}: {cause}" if where and cause else cause, diagnosis["message"])
    else:
        texts = (principle(diagnosis["id"]), example, diagnosis["message"], "")
    return [{"level": n, "kind": kind, "text": text} for n, (kind, text) in enumerate(zip(KINDS, texts), 1) if text]


def principle(diagnosis_id):
    """Level 1 of a diagnosis without a catalogue entry: a cause's, or a structural finding's by its key's
    family ("" for neither)."""
    found = CAUSES.get(diagnosis_id) or misconceptions.CAUSES.get(diagnosis_id)
    key = diagnosis_id
    while not found and key:
        families = [family for family in STRUCTURAL if key.startswith(family)]
        found = STRUCTURAL[max(families, key=len)] if families else ""
        key = key.partition(":")[2]  # the finding of one returned item: its label first
    return found or ""


def _joined(texts):
    """One text per misconception named, "either … or …" for two; empty if any is missing."""
    texts = list(texts)
    if not all(texts):
        return ""
    if len(texts) == 1:
        return texts[0]
    return "These tests cannot tell two mistakes apart. Either: " + " Or: ".join(texts)
