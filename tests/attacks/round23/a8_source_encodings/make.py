# one exercise3 submission per odd source file: the right code, with a twist in its bytes
import os
SOL = open("/work/scratch20/solutions/exercise3_scaling.py", "rb").read()
V = {
 "control": SOL,
 "coding_hex": b"# -*- coding: hex -*-\n" + SOL,
 "coding_rot13": b"# -*- coding: rot13 -*-\n" + SOL,
 "coding_zlib": b"# -*- coding: zlib_codec -*-\n" + SOL,
 "coding_base64": b"# -*- coding: base64 -*-\n" + SOL,
 "coding_undefined": b"# -*- coding: undefined -*-\n" + SOL,
 "bom_and_latin1": b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n" + SOL,
 "nul_byte": SOL + b"\n# \x00\n",
 "cr_only_newlines": SOL.replace(b"\n", b"\r"),
 "utf16_bom": SOL.decode().encode("utf-16"),
}
for name, data in V.items():
    os.makedirs(f"variants/{name}", exist_ok=True)
    open(f"variants/{name}/exercise3_scaling.py", "wb").write(data)
