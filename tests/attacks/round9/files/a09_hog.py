"""a09 (mallory's files): burn every core for the whole of her grading, to knock a classmate's
performance tier (graded at the same time, `batch --jobs 2`) off: threads that release the GIL
(hashlib on 1 MiB blocks), started at import, in every exercise's child, each child kept alive."""
import hashlib, threading, time
_BLOCK = b"x" * (1 << 20)
def _burn():
    end = time.monotonic() + 25
    while time.monotonic() < end:
        hashlib.sha256(_BLOCK).digest()
for _ in range(8):
    threading.Thread(target=_burn, daemon=True).start()
time.sleep(4)  # keep this child (and its threads) alive a while, within the time limit
