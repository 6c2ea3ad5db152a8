# shared by the attacks' run.sh: how to run the grader as root and as uid 65534.
# uid 65534 cannot execute /opt/venv22's interpreter (a symlink into /root/.pyenv, /root is 0700), so the
# user level runs a byte-identical copy of that CPython 3.11.7 build (/tmp/py3117) in a venv (/tmp/uvenv22)
# whose .pth adds /opt/venv22's site-packages: the same kit (/work/scratch22, editable) and the same torch.
ROOT_GRADE=/opt/venv22/bin/lumen-grade
setup_user_python() {
  [ -x /tmp/uvenv22/bin/lumen-grade ] && return
  mkdir -p /tmp/py3117/bin /tmp/py3117/lib
  cp -a /root/.pyenv/versions/3.11.7/bin/python3.11 /tmp/py3117/bin/
  cp -a /root/.pyenv/versions/3.11.7/lib/libpython3.11.so* /tmp/py3117/lib/
  (cd /root/.pyenv/versions/3.11.7/lib && tar cf - --exclude=python3.11/site-packages python3.11 | tar xf - -C /tmp/py3117/lib/)
  mkdir -p /tmp/py3117/lib/python3.11/site-packages
  LD_LIBRARY_PATH=/tmp/py3117/lib /tmp/py3117/bin/python3.11 -m venv --without-pip /tmp/uvenv22
  echo "import site; site.addsitedir('/opt/venv22/lib/python3.11/site-packages')" > /tmp/uvenv22/lib/python3.11/site-packages/zz_venv22.pth
  printf 'import sys\nsys.argv[0] = "lumen-grade"\nfrom grader.cli.main import main\nsys.exit(main())\n' > /tmp/uvenv22/bin/lumen_grade_main.py
  printf '#!/bin/sh\nexport LD_LIBRARY_PATH=/tmp/py3117/lib\nexec /tmp/uvenv22/bin/python /tmp/uvenv22/bin/lumen_grade_main.py "$@"\n' > /tmp/uvenv22/bin/lumen-grade
  chmod -R a+rX /tmp/py3117 /tmp/uvenv22; chmod a+rx /tmp/uvenv22/bin/lumen-grade
}
as_user() {
  mkdir -p /tmp/u65534 && chown 65534:65534 /tmp/u65534
  setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME=/tmp/u65534 \
    PATH=/tmp/uvenv22/bin:/opt/venv22/bin:/usr/bin:/bin "$@"
}
