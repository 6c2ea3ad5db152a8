import os, re, shutil
A = "/tmp/u65534/ta86/course-staff-area-for-the-attention-chapter-of-the-lumen-course"
SOL = A + "/kit/solutions"; REL = A + "/release"; SUB = A + "/edge/submissions"
shutil.rmtree(A + "/edge", ignore_errors=True); os.makedirs(SUB)
def sol(stem, edit=None):
    s = re.sub(r"[ \t]*# (BEGIN|END) SOLUTION\n|[ \t]*# HINT:.*\n", "", open(f"{SOL}/{stem}.py").read())
    return s.replace(*edit) if edit else s
INV = ("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))", "return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=1)")
os.makedirs(SUB + "/empty_student")
os.makedirs(SUB + "/readme_only"); open(SUB + "/readme_only/README.md", "w").write("hi")
# nested deep, as an LMS zip often is
d = SUB + "/nested/hw3/Lumen-kit/exercises"; os.makedirs(d); open(d + "/exercise4_masking.py", "w").write(sol("exercise4_masking"))
# an old draft at the root (wrong) and the real work deeper (right)
d = SUB + "/draft_at_root"; shutil.copytree(REL + "/exercises", d + "/exercises")
open(d + "/exercises/exercise4_masking.py", "w").write(sol("exercise4_masking"))
open(d + "/exercise4_masking.py", "w").write(sol("exercise4_masking", INV))
# a __MACOSX copy and a unicode folder name
d = SUB + "/José Núñez"; os.makedirs(d + "/__MACOSX/exercises"); os.makedirs(d + "/exercises")
open(d + "/exercises/exercise4_masking.py", "w").write(sol("exercise4_masking"))
open(d + "/__MACOSX/exercises/._exercise4_masking.py", "wb").write(b"\x00\x05\x16\x07binary")
print(sorted(os.listdir(SUB)))
