#!/bin/bash
# a student's exception text / printed text with U+FFFF / U+FFFE (not XML 1.0 characters) in the JUnit report
cd "$(dirname "$0")"; source /work/round72/lib.sh
parse() { /opt/venv20/bin/python -c "
import sys, xml.etree.ElementTree as ET
try:
    ET.parse(sys.argv[1]); print('junit parses: ok')
except ET.ParseError as e: print('junit does NOT parse:', e)
" "$1"; }
for s in sub control; do
  echo "########## $s"
  echo "=== root"; root_grade exercise3 --submission "$PWD/$s" --no-perf --format junit --output $RT_TMP/../r72-a05-$s-root.xml >/dev/null; parse $RT_TMP/../r72-a05-$s-root.xml
  U=$(user_copy "$PWD/$s" r72-a05-$s)
  echo "=== uid 65534"; user_grade exercise3 --submission "$U" --no-perf --format junit --output /tmp/u65534/r72-a05-$s.xml >/dev/null; parse /tmp/u65534/r72-a05-$s.xml
  grep -c $'\xef\xbf\xbf' /tmp/u65534/r72-a05-$s.xml | sed 's/^/U+FFFF occurrences in the file: /'
  rm -rf "$U" /tmp/u65534/r72-a05-$s.xml /tmp/r72-a05-$s-root.xml
done
leftovers
