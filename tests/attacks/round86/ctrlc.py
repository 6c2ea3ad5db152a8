import os, signal, subprocess, sys, time
# Simulate Ctrl-C in a terminal: SIGINT to the whole foreground process group.
p = subprocess.Popen(sys.argv[2:], start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(float(sys.argv[1]))
os.killpg(p.pid, signal.SIGINT)
t = time.time(); rc = p.wait(); print(f"EXIT={rc} ({time.time()-t:.1f}s after SIGINT)", flush=True)
time.sleep(1)
print(subprocess.run(["ps", "-g", str(p.pid), "-o", "pid,etime,cmd"], capture_output=True, text=True).stdout)
