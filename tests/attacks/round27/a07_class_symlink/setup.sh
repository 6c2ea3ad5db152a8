# the links and named pipes of this attack (not kept in git): made before run.sh uses them
cd "$(dirname "$0")"
ln -sfn '/work/scratch20/solutions' 'sub/class/bob'
ln -sfn 'alice' 'sub/class/carol'
