# helpers for a Gradescope-like root under /tmp, built with the kit's own gradescope-bundle command
# gs_build ZIP EXERCISE...      : lumen-grade gradescope-bundle (as root, from /tmp)
# gs_root ROOT ZIP OWNER        : lay out ROOT (source/ submission/ results/), owned by OWNER (root or 65534);
#                                 as root, also a lumen-venv with the kit installed (copied) as setup.sh would
# gs_run ROOT root|user         : run ROOT/source/run_autograder at that level
gs_build() { local zip=$1; shift; local args=(); for e in "$@"; do args+=(--exercise "$e"); done
  (cd /tmp && /opt/venv20/bin/lumen-grade gradescope-bundle --out "$zip" "${args[@]}" 2>&1 | tail -2); }
gs_root() { local R=$1 zip=$2 owner=$3; rm -rf "$R"; mkdir -p "$R/source" "$R/submission" "$R/results"; unzip -q "$zip" -d "$R/source"
  if [ "$owner" = root ]; then
    /root/.pyenv/versions/3.11.7/bin/python3.11 -m venv --without-pip "$R/lumen-venv"
    local SP="$R/lumen-venv/lib/python3.11/site-packages"
    echo "import site; site.addsitedir('/opt/venv20/lib/python3.11/site-packages')" > "$SP/zz_venv20.pth"
    cp -r "$R/source/kit/grader" "$R/source/kit/lumen_ref" "$SP/"   # pip install of the kit, non-editable
  else chown -R 65534:65534 "$R"; fi; }
gs_run() { local R=$1 level=$2
  if [ "$level" = root ]; then (cd /tmp && env -u PYTHONPATH LUMEN_AUTOGRADER_ROOT="$R" bash "$R/source/run_autograder")
  else (cd /tmp/u65534 && as_user env LUMEN_AUTOGRADER_ROOT="$R" LUMEN_PYTHON=/tmp/uvenv/bin/python LD_LIBRARY_PATH=/tmp/py3117/lib bash "$R/source/run_autograder"); fi; }
gs_show() { python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/results/results.json"))
print("score", r.get("score"), "| ladder record:", json.dumps((r.get("extra_data") or {}).get("ladder")))
for t in r.get("tests", []):
    if (t.get("extra_data") or {}).get("level") is not None:
        print("  level", t["extra_data"]["level"], "|", t["name"], "|", t["output"].splitlines()[-1][:150]); break
PY
}
