#!/bin/bash
# a15: characters XML 1.0 forbids, and markup, in what the JUnit report carries; is the XML well-formed?
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
check() { python3 -c "
import sys, xml.etree.ElementTree as ET
try:
    t = ET.parse(sys.argv[1]).getroot(); print('well-formed XML;', t.attrib)
except Exception as e: print('XML ERROR', e)" "$1"; }
for who in attack control; do
  root_grade exercise3 --submission "$HERE/$who" --no-perf --format junit --output /tmp/a15-$who.xml | tail -1
  echo "ROOT $who: $(check /tmp/a15-$who.xml)"
  U=$(user_copy "$HERE/$who" a15-$who)
  user_grade exercise3 --submission "$U" --no-perf --format junit --output /tmp/u65534/a15-$who.xml | tail -1
  echo "USER $who: $(check /tmp/u65534/a15-$who.xml)"
  rm -rf "$U" /tmp/a15-$who.xml /tmp/u65534/a15-$who.xml
done
leftovers
