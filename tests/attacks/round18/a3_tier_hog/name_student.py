import ctypes as _c
try:
    _c.CDLL(None).prctl(15, b"STUDENT", 0, 0, 0)   # PR_SET_NAME: this child marks itself
except Exception:
    pass
