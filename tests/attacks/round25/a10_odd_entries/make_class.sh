#!/bin/bash
# class folder $1: students whose exercise "files" are a FIFO, a socket, a directory, unreadable, a symlink loop
C=$1; rm -rf "$C"; mkdir -p "$C"; S=/work/scratch20/solutions/exercise3_scaling.py
mkdir -p "$C/fifo/a" && mkfifo "$C/fifo/exercise3_scaling.py" && cp $S "$C/fifo/a/"
mkdir -p "$C/sock" && python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$C/sock/exercise3_scaling.py"
mkdir -p "$C/dir/exercise3_scaling.py" && cp $S "$C/dir/exercise3_scaling.py/x.py"
mkdir -p "$C/unreadable" && cp $S "$C/unreadable/" && chmod 000 "$C/unreadable/exercise3_scaling.py"
mkdir -p "$C/loop" && ln -s loop2 "$C/loop/loop1" && ln -s loop1 "$C/loop/loop2" && ln -s ../loop "$C/loop/exercise3_scaling.py"
mkdir -p "$C/devnode" && mknod "$C/devnode/exercise3_scaling.py" c 1 3 2>/dev/null || echo "no mknod"
mkdir -p "$C/unreadable_dir/sub" && cp $S "$C/unreadable_dir/sub/" && chmod 000 "$C/unreadable_dir/sub"
