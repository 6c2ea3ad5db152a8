"""Build a class of students from the release (run as the TA user)."""
import json, os, re, shutil, sys
A = "/tmp/u65534/ta86/course-staff-area-for-the-attention-chapter-of-the-lumen-course"
K = A + "/kit"; REL = A + "/release"; SUB = A + "/class/submissions"
SOL = K + "/solutions"
shutil.rmtree(SUB, ignore_errors=True); os.makedirs(SUB)
STEMS = {n: f for f in os.listdir(SOL) if f.endswith(".py") for n in [int(re.match(r"exercise(\d+)_", f).group(1))]}

def student(folder, who):
    d = os.path.join(SUB, folder)
    shutil.copytree(REL, d)   # a copy of the release (README, wheel, exercises/)
    return d

def sign(text, who):
    name, email, sid = who
    return f"# {name} <{email}> student id {sid}\nAUTHOR = '{name} {email}'\n{name.split()[0].lower()}_{sid} = 1\n" + text

def solve(d, n, who, edit=None):
    src = open(os.path.join(SOL, STEMS[n])).read()
    src = re.sub(r"[ \t]*# (BEGIN|END) SOLUTION\n", "", src)
    src = re.sub(r"[ \t]*# HINT:.*\n", "", src)
    if edit:
        old, new = edit
        assert old in src, (n, old)
        src = src.replace(old, new)
    open(os.path.join(d, "exercises", STEMS[n]), "w").write(sign(src, who))

ROSTER = [
    ("20260001", "Alice Martin", "alice.martin@uni.example"),
    ("20260002", "Bob Nguyen", "bob.nguyen@uni.example"),
    ("20260003", "Carol Okafor", "carol.okafor@uni.example"),
    ("20260004", "Dave Petrov", "dave.petrov@uni.example"),
    ("20260005", "Erin Quist", "erin.quist@uni.example"),
    ("20260006", "Frank Rossi", "frank.rossi@uni.example"),
    ("20260007", "Grace Sato", "grace.sato@uni.example"),
    ("20260008", "Heidi Tran", "heidi.tran@uni.example"),
    ("20260009", "Ivan Usman", "ivan.usman@uni.example"),
    ("20260010", "Judy Vance", "judy.vance@uni.example"),   # on roster, never submitted
]
W = {r[0]: (r[1], r[2], r[0]) for r in ROSTER}

# s1 Alice: everything solved
d = student("20260001", W["20260001"])
for n in STEMS: solve(d, n, W["20260001"])
# s2 Bob: 1-4 solved, 5 softmax over the wrong axis
d = student("20260002", W["20260002"]); w = W["20260002"]
for n in (1, 2, 3, 4): solve(d, n, w)
solve(d, 5, w, ("weights = softmax(scores, dim=-1)", "weights = softmax(scores, dim=-2)"))
# s3 Carol: 1,2 solved, 3 missing scale, 5 missing scale too (same misconception on two exercises)
d = student("20260003", W["20260003"]); w = W["20260003"]
for n in (1, 2): solve(d, n, w)
solve(d, 3, w, ("return scores / math.sqrt(d_k)", "return scores"))
solve(d, 5, w, ("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", "scores = q @ k.transpose(-2, -1)"))
# s4 Dave: 1-3 solved, 4 mask inverted
d = student("20260004", W["20260004"]); w = W["20260004"]
for n in (1, 2, 3): solve(d, n, w)
solve(d, 4, w, ("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))",
                "return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=1)"))
# s5 Erin: untouched release
d = student("20260005", W["20260005"])
# s6 Frank: exercise 3 done in the notebook (the .py left as released), exercise 2 in .py
d = student("20260006", W["20260006"]); w = W["20260006"]
solve(d, 2, w)
nbp = os.path.join(d, "exercises/notebooks/exercise3_scaling.ipynb")
nb = json.load(open(nbp))
src = "".join(nb["cells"][1]["source"])
src = src.replace('raise NotImplementedError("Exercise 3: divide the scores by √d_k (math.sqrt) — see \'Why divide by √d_k?\' in the chapter")', "return scores / math.sqrt(d_k)")
src = re.sub(r'raise NotImplementedError\("Exercise 3: Q K.*?"\)', "return scale_scores(q @ k.transpose(-2, -1), q.size(-1))", src)
assert "NotImplementedError(" not in src, src
nb["cells"][1]["source"] = sign(src, w)
json.dump(nb, open(nbp, "w"), indent=1)
# s7 Grace: exercise 3 solved but saved as a browser's second download, stub deleted; 1 solved
d = student("20260007", W["20260007"]); w = W["20260007"]
solve(d, 1, w); solve(d, 3, w)
os.rename(os.path.join(d, "exercises/exercise3_scaling.py"), os.path.join(d, "exercises/exercise3_scaling (1).py"))
# also: exercise 2 named without the suffix
solve(d, 2, w)
os.rename(os.path.join(d, "exercises/exercise2_scoring.py"), os.path.join(d, "exercises/exercise2.py"))
# s8 Heidi: 1 solved, 2 with a syntax error
d = student("20260008", W["20260008"]); w = W["20260008"]
solve(d, 1, w)
solve(d, 2, w, ("return q @ k.transpose(-2, -1)", "return q @ k.transpose(-2, -1"))
# s9 Ivan: 2 solved, 3 loops forever in scale_scores
d = student("20260009", W["20260009"]); w = W["20260009"]
solve(d, 2, w)
solve(d, 3, w, ("return scores / math.sqrt(d_k)", "while True:\n        pass"))
# not on roster: a folder named after a name
d = student("zoe_late", ("Zoe Walker", "zoe.walker@uni.example", "99999999"))
solve(d, 2, ("Zoe Walker", "zoe.walker@uni.example", "99999999"))
with open(A + "/class/roster.csv", "w") as f:
    f.write("student_id,name,email,section\n")
    for sid, name, email in ROSTER:
        f.write(f"{sid},{name},{email},A1\n")
print("class:", sorted(os.listdir(SUB)))
