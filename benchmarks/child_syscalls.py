"""The system calls confined children make, recorded: where the seccomp allowlist comes from
(grader/sandbox/child.py, docs/security.md). Runs a grading command under `strace -f`, keeps what
each child called after its filter was installed (its threads included), and lists the calls of
the children that were never refused (EPERM/EACCES: a hostile file's attempts), with those the
allowlist lacks. Needs strace; rerun it after a torch or Python upgrade.

    python benchmarks/child_syscalls.py -- lumen-grade all --submission solutions --device cpu
    python benchmarks/child_syscalls.py -- python -m pytest -q tests/diagnosis/test_honest.py
"""

import collections
import re
import shutil
import subprocess
import sys
import tempfile

import click

_LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$")


def confined_calls(trace):
    """{child: Counter of calls} from an `strace -f` log, and the children refused something."""
    confined, parent, calls, refused = set(), {}, collections.defaultdict(collections.Counter), set()
    for line in trace:
        match = _LINE.match(line)
        if not match:
            continue
        pid, resumed, rest = int(match[1]), match[2], match[4]
        name = match[3] or resumed
        if name == "prctl" and "PR_SET_SECCOMP" in rest:
            confined.add(pid)  # the filter's own installation is the last call before it holds
            continue
        if pid not in confined:
            continue
        top = parent.get(pid, pid)
        born = re.search(r"= (\d+)\s*$", rest) if name in ("clone", "clone3") else None
        if born:
            confined.add(int(born[1]))
            parent[int(born[1])] = top
        if re.search(r"= -1 (EPERM|EACCES)", rest):
            refused.add(top)
        if not resumed:
            calls[top][name] += 1
    return calls, refused


def report(trace, gpu=False):
    """The lines that list what the confined children of an `strace -f` log called, each marked
    where the allowlist (with CUDA's allowance: `gpu`) lacks it."""
    from grader.sandbox import child

    calls, refused = confined_calls(trace)
    honest = collections.Counter()
    for top, counts in calls.items():
        if top not in refused:
            honest.update(counts)
    allowed = {name for name, _ in child._rules(pid=0, gpu=gpu)}  # as they come, or for some arguments
    lines = [f"{len(calls)} confined children, {len(calls) - len(refused)} never refused anything"]
    lines += [f"  {name:<20} {count:8}{'' if name in allowed else '  NOT IN THE ALLOWLIST'}"
              for name, count in sorted(honest.items())]
    lines.append("only in children that were refused something: "
                 + " ".join(sorted({n for top in refused for n in calls[top]} - set(honest))))
    return lines


def traced(command, gpu=False):
    """`command` run under `strace -f`: the report's lines of its log (`gpu`: see `report`)."""
    if not shutil.which("strace"):
        raise click.ClickException("needs strace")
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as log:
        subprocess.run(["strace", "-f", "-qq", "-s", "0", "-o", log.name, *command], stdout=sys.stderr)
        return report(log, gpu)


@click.command(context_settings={"ignore_unknown_options": True})
@click.option("--gpu", is_flag=True, help="Mark the calls against the allowlist with CUDA's allowance.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def main(gpu, command):
    for line in traced(command, gpu):
        click.echo(line)


if __name__ == "__main__":
    main()
