"""With --score-reaching (static hold off): does the confinement still stop an escape? Each try's outcome
is reported in the import error the grade shows (the exercise scores 0 either way)."""
import os
import socket
import subprocess

_here = os.path.dirname(os.path.abspath(__file__))
_results = []


def _attempt(label, fn):
    try:
        out = fn()
        _results.append(f"{label}=DONE{'' if out is None else ':' + str(out)[:40]}")
    except BaseException as error:  # noqa: BLE001
        _results.append(f"{label}={type(error).__name__}")


def _write(path):
    with open(path, "w") as handle:
        handle.write("r50 was here\n")


# (answer key: held as a rule break, shown in result of the first run)
# _attempt("read_answer_key", lambda: open("/work/scratch20/solutions/exercise1_projection.py").read(60))
# _attempt("read_lumen_ref", lambda: os.listdir("/work/scratch20/lumen_ref"))
_attempt("write_kit", lambda: _write("/work/scratch20/grader/zz_r50_a06"))
_attempt("write_parent", lambda: _write(os.path.join(os.path.dirname(_here), "zz_r50_a06")))
_attempt("write_own_folder", lambda: _write(os.path.join(_here, "zz_r50_a06")))
_attempt("write_tmp", lambda: _write("/tmp/zz_r50_a06"))
_attempt("list_parent", lambda: os.listdir(os.path.dirname(_here)))
_attempt("subprocess", lambda: subprocess.run(["/bin/true"]).returncode)
_attempt("socket", lambda: socket.socket().connect(("127.0.0.1", 22)))
_attempt("kill_parent", lambda: os.kill(os.getppid(), 0))
_attempt("fork", lambda: os.fork() or os._exit(0))
raise ImportError("R50 " + " ".join(_results))


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    return (x @ w_qkv).chunk(3, dim=-1)
