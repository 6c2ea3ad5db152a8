#!/bin/bash
# class folder $1: students whose names are the shard's own file names
C=$1; rm -rf "$C"; mkdir -p "$C"
for s in _shard _shard.manifest alice grades; do mkdir -p "$C/$s"; cp /work/scratch20/solutions/exercise3_scaling.py "$C/$s/"; done
