# a05: a notebook that is JSON and that nbformat accepts (reads() with capture_validation_error
# does not raise on a schema violation), but whose code cell has an int as its source, or a cell
# with no cell_type. The judge's own notebook reader (submission.python_source / notebook_cells)
# then raises AttributeError: a grader traceback instead of a one-line "not a notebook" row.
import json, sys
base = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}
json.dump({**base, "cells": [{"cell_type": "code", "source": 5, "metadata": {}, "outputs": [],
                               "execution_count": None}]}, open(sys.argv[1] + "/int_source/exercise3_scaling.ipynb", "w"))
json.dump({**base, "cells": [{"source": "x = 1", "metadata": {}}]}, open(sys.argv[1] + "/no_type/exercise3_scaling.ipynb", "w"))
