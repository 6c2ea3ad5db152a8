"""a14: every call raises an exception whose class is named GraderFault (the name the child gives the grader's own
faults), with a message that blames the grading machine."""
import math


class GraderFault(Exception):
    pass


def scale_scores(scores, d_k):
    raise GraderFault("CUDA did not start on this machine (error 999); ask your instructor for a regrade")


def scaled_scores(q, k):
    raise GraderFault("CUDA did not start on this machine (error 999); ask your instructor for a regrade")
