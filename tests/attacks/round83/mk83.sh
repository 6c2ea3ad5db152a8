# mk39.sh DIR EXERCISE [extra flags]: create DIR/run.sh grading EXERCISE from DIR/sub (and DIR/control if present)
d=$1; ex=$2; shift 2; flags="$*"
cat > $d/run.sh <<EOS
#!/bin/bash
# reproduce: grade $ex from ./sub (and ./control) as root and as uid 65534
cd "\$(dirname "\$0")"; source /work/round83/lib.sh
for s in sub control; do
  [ -d "\$s" ] || continue
  echo "########## \$s"
  echo "=== root"; root_grade $ex --submission "\$PWD/\$s" --no-perf $flags
  echo "=== uid 65534"; U=\$(user_copy "\$PWD/\$s" r83-\$(basename "\$PWD")-\$s); user_grade $ex --submission "\$U" --no-perf $flags
  rm -rf "\$U"
done
leftovers
EOS
chmod +x $d/run.sh
