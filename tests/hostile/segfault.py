"""Crashes its process with SIGSEGV through ctypes."""

import ctypes


def scale_scores(scores, d_k):
    ctypes.string_at(0)


def scaled_scores(q, k):
    ctypes.string_at(0)
