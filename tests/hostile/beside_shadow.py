"""Saved as torch.py, numpy.py and sitecustomize.py beside the submission: leaves a file behind if
anything imports it, then ends the process as if all went well."""

import os
import sys

open(os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{__name__}-was-imported"), "w").close()
sys.exit(0)
