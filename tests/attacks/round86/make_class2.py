import os, re, shutil
A = "/tmp/u65534/ta86/course-staff-area-for-the-attention-chapter-of-the-lumen-course"
SOL = A + "/kit/solutions"; REL = A + "/release"; SUB = A + "/class2/submissions"
shutil.rmtree(A + "/class2", ignore_errors=True); os.makedirs(SUB)
def sol(stem):
    s = open(f"{SOL}/{stem}.py").read()
    return re.sub(r"[ \t]*# (BEGIN|END) SOLUTION\n|[ \t]*# HINT:.*\n", "", s)
TRIL = "return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))"
TRIU = "return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=1)"
# folders named by email, as some LMS exports do
people = [("alice.martin@uni.example", "Alice Martin", "20260001"), ("bob.nguyen@uni.example", "Bob Nguyen", "20260002"),
          ("carol.okafor@uni.example", "Carol Okafor", "20260003")]
for i, (email, name, sid) in enumerate(people):
    d = f"{SUB}/{email}"; shutil.copytree(REL + "/exercises", d + "/exercises")
    s = sol("exercise4_masking").replace(TRIL, TRIU)
    doc_end = s.index('"""', 3) + 3
    if i == 0:   # name in a header comment and __author__ after the docstring, and in a comment on the mistaken line
        s = f"# Name: {name} ({email}), student no. {sid}\n" + s[:doc_end] + f"\n__author__ = \"{name} <{email}>\"\n" + s[doc_end:]
        s = s.replace(TRIU, TRIU + f"  # {name.split()[0]}: upper triangle?")
    elif i == 1:  # name only in a comment; debug print naming the student
        s = f"# {name}, {sid}\n" + s
        s = s.replace(TRIU, f"print('{name.split()[0]} was here')\n    " + TRIU)
    else:        # name in a string constant used in the code
        s = s.replace(TRIU, f"owner = '{email}'\n    " + TRIU)
    open(d + "/exercises/exercise4_masking.py", "w").write(s)
with open(A + "/class2/roster.csv", "w") as f:
    f.write("student_id,name,email\n")
    for email, name, sid in people: f.write(f"{sid},{name},{email}\n")
print(os.listdir(SUB))
