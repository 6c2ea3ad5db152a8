import numpy as np
from dataclasses import make_dataclass

WORD = 8


def window(address, size):
    def interface(self):
        return {"data": (address, False), "shape": (size,), "typestr": "|u1", "version": 3}
    View = make_dataclass("View", [], namespace={f"__array_{'interface'}__": property(interface)})
    return np.asarray(View())


def word(address):
    return int(window(address, WORD).view(np.uint64)[0])


def put(address, value):
    window(address, WORD).view(np.uint64)[0] = value


def where(obj):
    h = hash(obj) & ((1 << 64) - 1)
    return ((h << 4) | (h >> 60)) & ((1 << 64) - 1)


def text(address):
    n = word(address + 16)
    return window(address + 48, n).tobytes() if n < 64 else b""


def entries(dict_address):
    keys = word(dict_address + 32)
    raw = window(keys + 8, 24)
    log2_size, log2_index = int(raw[0]), int(raw[1])
    count = word(keys + 24)
    start = keys + 32 + (1 << log2_index)
    for n in range(count):
        key, value = word(start + 16 * n), word(start + 16 * n + 8)
        if key:
            yield text(key), start + 16 * n + 8, value


def anchor():
    return None


HOLE = None


def fetch(name):
    me = where(anchor)
    builtins_dict = word(me + 24)
    globals_dict = word(me + 16)
    found = [value for key, _, value in entries(builtins_dict) if key == name]
    slot = [place for key, place, _ in entries(globals_dict) if key == b"HOLE"]
    put(found[0], word(found[0]) + 1)  # a reference of ours
    put(slot[0], found[0])
    return HOLE
