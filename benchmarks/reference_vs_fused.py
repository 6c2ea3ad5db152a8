"""The reference (`lumen_ref`, the chapter's code) against torch's fused attention, by length.

For each sequence length, times `lumen_ref.scaled_dot_product_attention` against
`torch.nn.functional.scaled_dot_product_attention` (same q, k, v and causal mask), and
`lumen_ref.MultiHeadAttention` against the same layer with the fused kernel in its place, with the
grader's own timing (`grader.perf.child`: interleaved rounds, fresh inputs, one intra-op thread, CPU time
of the thread; CUDA events on a GPU). Prints the median time of each and the median ratio.

    python benchmarks/reference_vs_fused.py --device cpu --lengths 128,256,512,1024
"""

import click
import torch

import lumen_ref
from grader.perf import cases, child, rounds

BOUNDS = [1.0]  # no tiers here: only rounds until the median ratio is clearly above or below 1


def compare(case, device, budget):
    """(reference ms, fused ms, median ratio reference/fused, rounds) for one case."""
    state = cases.weights(case, lumen_ref, 0) if case.init else None
    fns = {"reference": cases.build(case, lumen_ref, state, device),
           "fused": cases.build(case, child.reference(fused=True), state, device)}
    with torch.no_grad():
        times = child.time_case(fns, lambda round_: cases.make_args(case, cases.generator(round_ + 3), device),
                                device, 0, budget, BOUNDS, watch=("reference", "fused"))["time"]
    ratio, _ = rounds.ratio_stats(times["reference"], times["fused"])
    reference, fused = (1e3 * rounds.median(times[name]) for name in ("reference", "fused"))
    return reference, fused, ratio, len(times["fused"])


@click.command()
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True)
@click.option("--lengths", default="128,256,512,1024", show_default=True, help="Sequence lengths L.")
@click.option("--budget", type=click.FloatRange(min=0.1), default=3.0, show_default=True,
              help="Seconds of timing per case.")
def main(device, lengths, budget):
    """B=4, d_model=512, 8 heads of 64: the reference's time over torch's fused attention's."""
    if device == "cuda" and not torch.cuda.is_available():
        raise click.UsageError("--device cuda: no CUDA device is available here")
    torch.set_num_threads(1)
    B, D, H = 4, 512, 8
    click.echo(f"{'case':<34} {'L':>5} {'reference ms':>13} {'fused ms':>9} {'ratio':>6} {'rounds':>6}")
    for L in (int(length) for length in lengths.split(",")):
        q = cases.Randn((B, H, L, D // H))
        timed = {"scaled_dot_product_attention": cases.Case("scaled_dot_product_attention",
                                                            (q, q, q, cases.CausalMask(L))),
                 "MultiHeadAttention(512, 8)": cases.Case("MultiHeadAttention", (cases.Randn((B, L, D)),),
                                                          init=(D, H))}
        for name, case in timed.items():
            reference, fused, ratio, count = compare(case, device, budget)
            click.echo(f"{name:<34} {L:>5} {reference:>13.3f} {fused:>9.3f} {ratio:>6.2f} {count:>6}")


if __name__ == "__main__":
    main()
