#!/bin/bash
# builds a class under $1: alice (the chapter's exercises 1, 6, 10) and mallory (a15's ex1, a20's ex6, a17's ex10)
set -e
C=$1; rm -rf "$C"; mkdir -p "$C/alice" "$C/mallory"
for f in exercise1_projection.py exercise6_multihead.py exercise10_tiled_attention.py; do cp /work/scratch20/solutions/$f "$C/alice/"; done
cp /work/round31/a15_untyped_storage_override_window/sub/exercise1_projection.py "$C/mallory/"
cp /work/round31/a20_resurrected_torch_mha/sub/exercise6_multihead.py "$C/mallory/"
cp /work/round31/a17_window_query_chunks_ex10/sub/exercise10_tiled_attention.py "$C/mallory/"
