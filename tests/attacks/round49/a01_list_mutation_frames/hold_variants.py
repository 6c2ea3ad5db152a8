import sys
sys.path.insert(0, "/work/scratch20")
from grader.sandbox.reach import reaches
srcs = {
"append": '''
def f(g):
    names = ["weight"]
    names.append("gi_" + "fr" + "ame")
    for n in names:
        x = getattr(g, n)
    return x
''',
"subscript": '''
def f(g):
    names = ["weight", "bias"]
    names[1] = "".join(["gi_", "frame"])
    for n in names:
        x = getattr(g, n)
    return x
''',
"dictkeys": '''
def f(g):
    heads = {"q_proj": 1}
    heads["gi_frame".lower()] = 2
    for n in heads:
        x = getattr(g, n)
    return x
''',
}
for k, s in srcs.items():
    print(k, reaches(s))
