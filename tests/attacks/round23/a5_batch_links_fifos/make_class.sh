#!/bin/bash
# make_class.sh DIR: a class of two. alice: every solution. bob: exercise3 right, and in his folder
# links to alice's files and folder, a fifo and a unix socket bearing exercise names, a file with a
# 'coding: hex' line, and a hard link is NOT included (a student's upload cannot make one).
C=$1; rm -rf "$C"; mkdir -p "$C/alice" "$C/bob/sub"
cp /work/scratch20/solutions/*.py "$C/alice/"
cp /work/scratch20/solutions/exercise3_scaling.py "$C/bob/"
ln -s ../alice/exercise1_projection.py "$C/bob/exercise1_projection.py"       # a link to a classmate's file
ln -s ../../alice "$C/bob/sub/alice_copy"                                     # a link to a classmate's folder
ln -s /work/scratch20/solutions/exercise2_scoring.py "$C/bob/sub/exercise2_scoring.py"  # a link to the answer key
mkfifo "$C/bob/exercise4_masking.py"                                          # a pipe: reading it would block
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$C/bob/exercise5_softmax.py"
(echo "# -*- coding: hex -*-"; cat /work/scratch20/solutions/exercise6_multihead.py) > "$C/bob/exercise6_multihead.py"
ln -s /dev/zero "$C/bob/sub/exercise7_gqa.py"                                 # a link to an endless device
