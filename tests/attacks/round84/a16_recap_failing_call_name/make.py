# a class on a roster (by id). Mallory (1003)'s find_heads names heads with a 0-d tensor (misconception heads-not-ints)
# and adds an entry holding a classmate's name and email: the test's message quotes the list; does the class report's
# "shortest failing check" (not an example) carry the name?
import os, sys
d = sys.argv[1]
sol = open('/work/scratch22/solutions/exercise9_head_patterns.py').read()
old = "def find_heads(patterns, threshold=0.4):"
assert old in sol
bad = sol.replace(old, '''def find_heads(patterns, threshold=0.4):
    found = _find_heads(patterns, threshold)
    return {kind: [(torch.tensor(layer), head) for layer, head in heads] + [("Alice Smith alice@uni.edu", 1001)]
            for kind, heads in found.items()}


def _find_heads(patterns, threshold=0.4):''')
for who, text in (("1001", sol), ("1002", sol), ("1003", bad)):
    os.makedirs(f"{d}/class/{who}", exist_ok=True); open(f"{d}/class/{who}/exercise9_head_patterns.py", "w").write(text)
open(f"{d}/roster.csv", "w").write("student_id,name,email\n1001,Alice Smith,alice@uni.edu\n1002,Bob Jones,bob@uni.edu\n1003,Mallory Evil,mallory@uni.edu\n")
