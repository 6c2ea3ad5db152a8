#!/bin/bash
# builds class/ (two students) under $1: alice (the chapter's exercise3) and a student folder whose name and
# exception text carry markup, a CSV formula and a newline-free "forged" line
set -e
C=$1; rm -rf "$C"; mkdir -p "$C/alice" "$C/=HYPERLINK(\"http:x\",\"<b>m</b>\")<img src=x onerror=alert(1)>"
cp /work/scratch20/solutions/exercise3_scaling.py "$C/alice/"
cp /work/round31/a04_exception_text_injection/sub/exercise3_scaling.py "$C/=HYPERLINK(\"http:x\",\"<b>m</b>\")<img src=x onerror=alert(1)>/"
