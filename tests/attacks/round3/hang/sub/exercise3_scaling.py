import math, os, signal, threading, time
import torch
# ignore every catchable signal, spin in threads and at import: the grader must still stop us
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM, signal.SIGUSR1):
    try: signal.signal(s, signal.SIG_IGN)
    except Exception: pass
def spin():
    while True: pass
for _ in range(4):
    threading.Thread(target=spin, daemon=False).start()
try: os.setsid()
except Exception: pass
while True:
    try: time.sleep(1)
    except BaseException: pass
