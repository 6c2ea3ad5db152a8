#!/bin/bash
# the victim: another student's folder under /tmp/u65534, owned by 65534
mkdir -p /tmp/u65534/a07-victim && echo "# victim's work" > /tmp/u65534/a07-victim/exercise3_scaling.py && chown -R 65534:65534 /tmp/u65534/a07-victim
