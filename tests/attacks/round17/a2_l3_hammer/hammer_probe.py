"""Does a memory hammer on the other CPU inflate the reference's CPU time on this one?"""
import os, sys, time, torch, multiprocessing as mp
sys.path.insert(0, "/work/scratch17")
from lumen_ref import steps

def hammer(stop):
    os.sched_setaffinity(0, {1}); torch.set_num_threads(1)
    a = torch.zeros(64 << 20, dtype=torch.uint8); b = torch.empty_like(a)
    while not stop.is_set():
        b.copy_(a)

def bench(fn, make, n=200):
    ts = []
    for _ in range(n):
        args = make()
        s = time.thread_time(); fn(*args); ts.append(time.thread_time() - s)
    return sorted(ts)[n // 2] * 1e3

if __name__ == "__main__":
    os.sched_setaffinity(0, {0}); torch.set_num_threads(1)
    cases = {"attention_scores": (steps.attention_scores, lambda: (torch.randn(4, 8, 128, 32), torch.randn(4, 8, 128, 32))),
             "softmax": (steps.softmax, lambda: (torch.randn(2, 8, 128, 128),)),
             "project": (steps.project, lambda: (torch.randn(4, 128, 256), *(torch.randn(256, 256) for _ in range(3))))}
    for rep in range(2):
        for name, (fn, make) in cases.items():
            quiet = bench(fn, make)
            stop = mp.Event(); p = mp.Process(target=hammer, args=(stop,)); p.start(); time.sleep(0.3)
            loud = bench(fn, make)
            stop.set(); p.join()
            print(f"{name}: quiet {quiet:.3f} ms, with hammer on CPU1 {loud:.3f} ms, x{loud / quiet:.2f}")
