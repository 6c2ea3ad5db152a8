import os
import pathlib

import torch
import torch.utils.model_zoo

_found = []


def _keep(m):
    _found.append(m)
    return 0


def _grab():
    folder = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / "zoo"
    folder.mkdir(exist_ok=True)
    body = b"\x80\x02cbuiltins\neval\n(X" + len(s := "__import__('sys').modules['__main__']._keep(__import__('gc'))").to_bytes(4, "little") + s.encode() + b"tR."
    (folder / "w.pt").write_bytes(body)
    try:
        torch.utils.model_zoo.load_url((folder / "w.pt").as_uri(), model_dir=str(folder / "cache"), weights_only=False, progress=False)
    except RuntimeError:
        pass
    return _found


print(_grab())
