# the links and named pipes of this attack (not kept in git): made before run.sh uses them
cd "$(dirname "$0")"
ln -sfn '/dev/zero' 'sub/exercise4_masking.py'
rm -f 'sub_fifo/exercise5_softmax.py'; mkfifo 'sub_fifo/exercise5_softmax.py'
