# the two folders whose names git should not hold (a newline; U+202E), made before run.sh uses them
cd "$(dirname "$0")"
evil=$'class/evil\nname=1+1'; bidi=$'class/\u202egnp.exe'
mkdir -p "$evil" "$bidi"
cp ../a01_socket_takeover_ex1/control/sub/exercise1_projection.py "$evil/"
cp ../a03_match_capture_name_main/sub/exercise1_projection.py "$bidi/"
