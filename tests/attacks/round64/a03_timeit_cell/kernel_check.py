# runs the notebook's code cells in a real IPython shell (not the grader), then calls tiled_attention
import json, sys, torch
from IPython.testing.globalipapp import get_ipython
ip = get_ipython()
nb = json.load(open(sys.argv[1]))
for cell in nb['cells']:
    src = ''.join(cell['source'])
    if cell['cell_type'] == 'code' and not src.startswith('# Check') and not src.startswith('# Scratch'):
        ip.run_cell(src, silent=True)
q = torch.randn(1, 2, 8, 4)
try:
    ip.user_ns['tiled_attention'](q, q, q, 3, True); print("kernel: tiled_attention works")
except NotImplementedError:
    print("kernel: tiled_attention raises NotImplementedError (the stub)")
