"""What NVIDIA's driver does with the files of a process that starts CUDA, done from Python: it names
each thread it starts by writing /proc/self/task/<tid>/comm (driver 570 and later fail CUDA's start
when that write is refused). `attempts` reports that write, and writes a child must never make."""

import errno
import os
import threading


def _write(path, text):
    try:
        with open(path, "w") as file:
            file.write(text)
        return "ok"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


def attempts():
    done = {"its main thread's name": _write(f"/proc/self/task/{threading.get_native_id()}/comm", "cuda-main")}

    def named():
        done["a new thread's name"] = _write(f"/proc/self/task/{threading.get_native_id()}/comm", "cuda-EvtHandlr")

    thread = threading.Thread(target=named)
    thread.start()
    thread.join()
    done["its process's name, outside task/"] = _write("/proc/self/comm", "renamed")
    done["its oom_score_adj"] = _write("/proc/self/oom_score_adj", "1000")
    done["its parent's name"] = _write(f"/proc/{os.getppid()}/task/{os.getppid()}/comm", "renamed")
    return done


def scale_scores(scores, d_k):
    return scores / d_k ** 0.5
