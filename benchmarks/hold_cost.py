"""What the hold (grader.sandbox.reach) costs on generated files of one construct repeated, at n and 2n
statements, interleaved: a ratio near 2 is linear, near 4 quadratic (a student's file of the largest size
the kit accepts, 2 MiB, must not keep the judge for minutes). Medians of --rounds.

    python benchmarks/hold_cost.py --statements 4000 --rounds 3
"""

import statistics
import time

import click


def shapes(n):
    """{shape: a file of `n` statements of it}: the constructs whose reading looks elsewhere in the file."""
    return {
        "getattr over a loop's names": "heads = {'q_proj': 1, 'k_proj': 2}\ndef f(o):\n" + "".join(
            f"    for n{i % 50} in heads: getattr(o, n{i % 50})\n" for i in range(n)),
        "one variable, many texts": "def f(o):\n" + "".join(f"    k = 'q{i % 7}'\n    getattr(o, k)\n" for i in range(n)),
        "f-string names": "def f(o, n):\n" + "".join(f"    getattr(o, f'x{i}_{{n}}')\n" for i in range(n)),
        "f-string ends": "def f(o, n):\n" + "".join(f"    getattr(o, f'{{n}}_q{i}')\n" for i in range(n)),
        "class patterns": "".join(f"def g{i}(v):\n    match v:\n        case int(x): pass\n" for i in range(n)),
        "private names on self": "".join(f"class C{i}:\n    def __init__(self):\n        self._k = 1\n"
                                         f"    def f(self):\n        return self._k\n" for i in range(n // 3)),
        "string annotations": "".join(f"def f{i}(x: 'list[int]') -> 'torch.Tensor': pass\n" for i in range(n)),
        "format strings": "".join(f"a{i} = '{{0.real}} {{1.imag}}'.format(1, 2)\n" for i in range(n)),
        "option strings": "import argparse\np = argparse.ArgumentParser()\n" + "".join(
            f"p.add_argument('--opt-{i}')\n" for i in range(n)),
        "builtins shadowed": "".join(f"input{i % 3} = 1\nx{i} = len([input{i % 3}])\n" for i in range(n)),
    }


@click.command()
@click.option("--statements", type=click.IntRange(min=10), default=4000, show_default=True,
              help="n: each shape is timed at n and 2n statements.")
@click.option("--rounds", type=click.IntRange(min=1), default=3, show_default=True, help="Timings per size.")
def main(statements, rounds):
    from grader.sandbox import reach

    read = reach.reaches.__wrapped__  # not the judge's cache of a file it has read
    read("import torch\n")  # the modules a file names, loaded once per process
    files = {size: shapes(size) for size in (statements, 2 * statements)}
    times = {(shape, size): [] for size in files for shape in files[size]}
    for _ in range(rounds):
        for shape in files[statements]:
            for size in files:
                started = time.perf_counter()
                read(files[size][shape])
                times[shape, size].append(time.perf_counter() - started)
    click.echo(f"{'shape':<30} {'n':>9} {'2n':>9} {'2n/n':>6} {'KiB at 2n':>10}")
    for shape in files[statements]:
        small, large = (statistics.median(times[shape, size]) for size in files)
        click.echo(f"{shape:<30} {small:8.2f}s {large:8.2f}s {large / small:6.2f} "
                   f"{len(files[2 * statements][shape]) >> 10:10d}")


if __name__ == "__main__":
    main()
