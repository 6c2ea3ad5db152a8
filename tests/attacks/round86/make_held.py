import os, re, shutil
A = "/tmp/u65534/ta86/course-staff-area-for-the-attention-chapter-of-the-lumen-course"
SOL = A + "/kit/solutions"; SUB = A + "/held/submissions"
shutil.rmtree(A + "/held", ignore_errors=True); os.makedirs(SUB)
def sol(stem, *edits):
    s = re.sub(r"[ \t]*# (BEGIN|END) SOLUTION\n|[ \t]*# HINT:.*\n", "", open(f"{SOL}/{stem}.py").read())
    for old, new in edits:
        assert old in s, old; s = s.replace(old, new)
    return s
def put(student, stem, text):
    d = f"{SUB}/{student}/exercises"; os.makedirs(d, exist_ok=True); open(f"{d}/{stem}.py", "w").write(text)
put("numpy_user", "exercise2_scoring", sol("exercise2_scoring", ("import torch\n", "import numpy as np\nimport torch\n")))
put("sys_debugger", "exercise3_scaling", sol("exercise3_scaling", ("import math\n", "import math\nimport sys\n"),
    ("    return scores / math.sqrt(d_k)", "    print('scale', scores.shape, file=sys.stderr)\n    return scores / math.sqrt(d_k)")))
put("builtin_softmax", "exercise5_softmax", sol("exercise5_softmax", ("    weights = softmax(scores, dim=-1)", "    weights = torch.softmax(scores, dim=-1)")))
put("plain_ok", "exercise2_scoring", sol("exercise2_scoring"))
print(os.listdir(SUB))
