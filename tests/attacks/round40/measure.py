# local check: what the probe measures of one call (run with /opt/venv20/bin/python)
import sys, importlib.util, torch
sys.path.insert(0, '/work/scratch20')
from grader.perf import probe
def load(path):
    spec = importlib.util.spec_from_file_location("m", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
