# writes sub/ (N rebinds of one local + N getattr reads of it: the judge's static check is O(N^2)) and
# control/ (the same lines, each read naming its own variable: linear)
import sys
N = int(sys.argv[1])
head = open("/work/scratch20/solutions/exercise3_scaling.py").read()
def block(trick):
    lines = ["\n\ndef _never_called(m):"]
    lines += [f"    t{'' if trick else i} = 'a{i}'" for i in range(N)]
    lines += [f"    getattr(m, t{'' if trick else i})" for i in range(N)]
    return "\n".join(lines) + "\n"
open("sub/exercise3_scaling.py", "w").write(head + block(True))
open("control/exercise3_scaling.py", "w").write(head + block(False))
