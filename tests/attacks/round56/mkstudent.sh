# mkstudent.sh STEM DEST: the solution file with its markers removed (a student's filled-in stub)
grep -v -e '# BEGIN SOLUTION' -e '# END SOLUTION' -e '# HINT:' /work/scratch20/solutions/$1.py > $2
