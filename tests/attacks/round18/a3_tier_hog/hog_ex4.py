# exercise 4's file: while exercise 3 is timed (beside this child's suites), watch /proc of the shared
# PID namespace; load the other core with memory traffic except while the student's own timing child
# (which named itself STUDENT) is running, so that only the reference's timed calls pay for it
import os, time, torch
def _stat(p):
    try:
        s = open(f"/proc/{p}/stat").read()
        return s[s.index("(") + 1:s.rindex(")")], s[s.rindex(")") + 2]
    except Exception:
        return None, None
def _hog(seconds=25.0):
    me = str(os.getpid())
    a = torch.empty(2 << 20, dtype=torch.float32); b = torch.empty_like(a); a.fill_(1.0)
    t0 = time.monotonic(); hogged = idle = 0; students = set(); others_seen = 0
    while time.monotonic() - t0 < seconds:
        if int((time.monotonic() - t0) * 10) % 5 == 0 or not students:
            for p in os.listdir("/proc"):
                if p.isdigit() and p != me:
                    c, st = _stat(p)
                    if c == "STUDENT":
                        students.add(p)
        live = [_stat(p) for p in students]
        if any(st == "R" for _, st in live):
            idle += 1
            continue
        b.copy_(a); a.mul_(1.0000001)
        hogged += 1
    print("hogged", hogged, "idle", idle, "students", sorted(students))
_hog()
