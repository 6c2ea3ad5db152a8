#!/bin/bash
# reproduce: grade ./sub as root and as uid 65534 (--format json, --score-reaching) and print score and output
cd "$(dirname "$0")"; /work/round66/jrun.sh "$PWD" exercise5 --score-reaching
