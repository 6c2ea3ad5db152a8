"""Write odd notebooks into folders nb_<kind>/exercise3_scaling.ipynb (argv[1]: where)."""
import json, sys
from pathlib import Path
root = Path(sys.argv[1])
code = open("/work/scratch20/solutions/exercise3_scaling.py").read()
cell = {"cell_type": "code", "source": code, "metadata": {}, "outputs": [], "execution_count": None}
base = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}}
kinds = {
    "cells_int": {**base, "cells": 5},
    "cells_true": {**base, "cells": True},
    "cells_str": {**base, "cells": "abc"},
    "cells_none_obj": {**base, "cells": [None]},
    "meta_owner_list": {**base, "metadata": {"lumen": {"exercise": ["exercise3"]}}, "cells": [cell]},
    "meta_owner_html": {**base, "metadata": {"lumen": {"exercise": "exercise4\u2028<script>alert(1)</script>"}}, "cells": [cell]},
    "v3_weird": {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [{"cell_type": "code", "input": 5}]}]},
    "v3_worksheets_int": {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": 7},
    "minor_huge": {"nbformat": 4, "nbformat_minor": 10**6, "metadata": {}, "cells": [cell]},
    "nbformat_str": {"nbformat": "4", "nbformat_minor": 5, "metadata": {}, "cells": [cell]},
    "source_list_mixed": {**base, "cells": [{**cell, "source": ["import math\n", 5]}]},
    "cell_type_code_source_dict": {**base, "cells": [{**cell, "source": {"a": 1}}]},
    "attachments": {**base, "cells": [{**cell, "cell_type": "raw", "attachments": 5}, cell]},
}
for name, nb in kinds.items():
    d = root / f"nb_{name}"; d.mkdir(parents=True, exist_ok=True)
    (d / "exercise3_scaling.ipynb").write_text(json.dumps(nb))
print(" ".join(sorted(kinds)))
