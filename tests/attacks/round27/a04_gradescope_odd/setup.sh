# the links and named pipes of this attack (not kept in git): made before run.sh uses them
cd "$(dirname "$0")"
rm -f 'sub/submission/exercise6_multihead.py'; mkfifo 'sub/submission/exercise6_multihead.py'
ln -sfn '/dev/zero' 'sub/submission/hw/exercise5_softmax.ipynb'
ln -sfn '/dev/zero' 'sub/submission/exercise4_masking.py'
ln -sfn '/work/scratch20/solutions' 'sub/submission/linkdir'
