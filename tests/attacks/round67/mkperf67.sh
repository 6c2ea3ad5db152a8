# mkperf67.sh DIR EXERCISE [extra flags]: like mk67.sh, but WITH the performance tier (--perf-points 10)
d=$1; ex=$2; shift 2; flags="$*"
cat > $d/run.sh <<EOS
#!/bin/bash
# reproduce: grade $ex from ./sub (and ./control) as root and as uid 65534, with the performance tier worth 10 points
cd "\$(dirname "\$0")"; source /work/round67/lib.sh
for s in sub control; do
  [ -d "\$s" ] || continue
  echo "########## \$s"
  echo "=== root"; root_grade $ex --submission "\$PWD/\$s" --perf-points 10 $flags
  echo "=== uid 65534"; U=\$(user_copy "\$PWD/\$s" r67-\$(basename "\$PWD")-\$s); user_grade $ex --submission "\$U" --perf-points 10 $flags
  rm -rf "\$U"
done
leftovers
EOS
chmod +x $d/run.sh
