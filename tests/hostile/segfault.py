"""Crashes its process with SIGSEGV (faulthandler's own test of a crash: no ctypes, which the rules
refuse before any crash)."""

import faulthandler


def scale_scores(scores, d_k):
    faulthandler._sigsegv()


def scaled_scores(q, k):
    faulthandler._sigsegv()
