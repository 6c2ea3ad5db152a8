# mk.sh DIR EXERCISE: create DIR/run.sh grading EXERCISE from DIR/sub at root and as 65534
d=$1; ex=$2
cat > $d/run.sh <<EOS
#!/bin/bash
# reproduce: grade $ex from ./sub as root and as uid 65534
cd "\$(dirname "\$0")"; source /work/round46/lib.sh
echo "=== root"; root_grade $ex --submission "\$PWD/sub" --no-perf -v
echo "=== uid 65534"; U=\$(user_copy "\$PWD/sub" sub-\$(basename "\$PWD")); user_grade $ex --submission "\$U" --no-perf -v
leftovers
EOS
chmod +x $d/run.sh
