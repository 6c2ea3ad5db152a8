"""Make a class folder (argv[1]) of hostile student folders for batch / merge / class-report."""
import json, shutil, sys
from pathlib import Path
C = Path(sys.argv[1]); shutil.rmtree(C, ignore_errors=True); C.mkdir(parents=True)
S = Path("/work/scratch20/solutions")
def student(name, files):
    d = C / name; d.mkdir()
    for fname, text in files.items():
        (d / fname).parent.mkdir(parents=True, exist_ok=True); (d / fname).write_text(text)
sol3 = (S / "exercise3_scaling.py").read_text()
sol4 = (S / "exercise4_masking.py").read_text()
wrong4 = sol4.replace("torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))",
                      "torch.triu(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=1)")
assert wrong4 != sol4
html = '</pre></code></td><script>alert(document.domain)</script><img src=x onerror=alert(1)>'
# 1 formula-looking folder names (leading =, leading space then =, fullwidth =, leading ' and |)
student('=HYPERLINK("evil.example","click")', {"exercise3_scaling.py": sol3})
student(' =1+2', {"exercise3_scaling.py": sol3})
student('＝1+2', {"exercise3_scaling.py": sol3})
student('|calc!A0', {"exercise3_scaling.py": sol3})
# 2 HTML in a folder name, and in nested file names
student('<img src=x onerror=alert(1)>', {"<b>x<script>alert(2)<\\script>/exercise4_masking.py": wrong4})
# 3 code that prints HTML and fails with an HTML exception message, wrong exercise 4 (a misconception)
student('printer', {"exercise3_scaling.py": sol3.replace('import torch', 'import torch\nprint(%r)' % html, 1)
                    + "\n_orig = scale_scores\ndef scale_scores(*a, **k):\n    raise ValueError(%r)\n" % html,
                    "exercise4_masking.py": wrong4.replace("import torch", "import torch\n# " + html + "\nX = '" + html + "'", 1)})
# 4 two students sharing the same wrong code (similarity leads) with HTML in their code lines
student('twin_a', {"exercise4_masking.py": wrong4.replace("import torch", "import torch\nNOTE = %r  # </pre><script>alert(3)</script>" % html, 1)})
student('twin_b', {"exercise4_masking.py": wrong4.replace("import torch", "import torch\nNOTE = %r  # </pre><script>alert(3)</script>" % html, 1)})
print("made", sorted(p.name for p in C.iterdir()))
