# helpers for the attacks' run.sh: grade a submission folder as root and as uid 65534
source /work/round83/common.sh
setup_user_python
RT_TMP=/tmp/rt-tmp-root-$$; UT_TMP=/tmp/u65534/tmp-$$
mkdir -p "$RT_TMP" /tmp/u65534; chown 65534:65534 /tmp/u65534; mkdir -p "$UT_TMP"; chown 65534:65534 "$UT_TMP"
# root_grade ARGS...  : lumen-grade as root, from /tmp, with a private TMPDIR
root_grade() { (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade "$@"); echo "[exit code $?]"; }
# user_copy SRC NAME  : copy SRC (folder) to /tmp/u65534/NAME owned by 65534, print the path
user_copy() { rm -rf "/tmp/u65534/$2"; cp -a "$1" "/tmp/u65534/$2"; chown -R 65534:65534 "/tmp/u65534/$2"; echo "/tmp/u65534/$2"; }
# user_grade ARGS...  : lumen-grade as uid 65534, from /tmp/u65534, with a private TMPDIR
user_grade() { (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade "$@"); echo "[exit code $?]"; }
# leftovers: what the gradings left in their private TMPDIRs, and processes still running as 65534
leftovers() {
  echo "left in root TMPDIR: $(find "$RT_TMP" -mindepth 1 2>/dev/null | wc -l) entries; in user TMPDIR: $(find "$UT_TMP" -mindepth 1 2>/dev/null | wc -l) entries"
  find "$RT_TMP" "$UT_TMP" -mindepth 1 -maxdepth 2 2>/dev/null | head -5
  echo "processes still running with these TMPDIRs: $(grep -lsa -e "TMPDIR=$RT_TMP" -e "TMPDIR=$UT_TMP" /proc/[0-9]*/environ 2>/dev/null | wc -l)"
  rm -rf "$RT_TMP" "$UT_TMP"
}
