#!/bin/sh
# Run "$@" in a private mount namespace whose /dev also holds a /dev/nvidia0 node (no driver, no
# real GPU: this session drew no device machine). That is all the kit looks at (glob /dev/nvidia*)
# to give its children CUDA's syscall allowance.
set -e
D=$(mktemp -d /tmp/a5dev.XXXXXX)
exec unshare -m --propagation private sh -c '
  D=$1; shift
  mount -t tmpfs tmpfs "$D"
  for n in null zero full random urandom tty; do cp -a /dev/$n "$D/" 2>/dev/null || true; done
  mkdir -p "$D/shm" "$D/pts"; chmod 1777 "$D/shm"
  mknod -m 666 "$D/nvidia0" c 195 0
  ln -s /proc/self/fd "$D/fd"
  mount --bind "$D" /dev
  exec "$@"' sh "$D" "$@"
