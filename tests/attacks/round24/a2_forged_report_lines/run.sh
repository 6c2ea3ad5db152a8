#!/bin/bash
# a2: verdict-like lines, bidi/line-separator characters, terminal escapes, HTML and CDATA in what the code prints and raises
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
echo "### root, text (cat -A)"; root_grade exercise3 --submission "$HERE" --no-perf 2>&1 | cat -A | head -24
for f in junit html gradescope; do root_grade exercise3 --submission "$HERE" --no-perf --format $f --output /tmp/a2_out.$f >/dev/null 2>&1; done
echo "### junit parses:"; python3 -c "import xml.dom.minidom as m; m.parse('/tmp/a2_out.junit'); print('yes')"
echo "### raw <b>html</b> in the HTML page: $(grep -c '<b>html' /tmp/a2_out.html)"
echo "### gradescope output_format: $(grep -o '"output_format": *"[a-z]*"' /tmp/a2_out.gradescope | sort -u)"
echo "### U+2028/U+2029 kept in the gradescope and JSON text: $(grep -c $'\u2028' /tmp/a2_out.gradescope)"
rm -f /tmp/a2_out.*
P=$(user_copy "$HERE" a2); echo "### uid 65534, text"; user_grade exercise3 --submission "$P" --no-perf 2>&1 | cat -A | head -12
leftovers
