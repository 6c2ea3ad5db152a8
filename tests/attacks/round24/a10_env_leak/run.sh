#!/bin/bash
# a10: secrets in the grader's environment, named like the prefixes a child keeps (LC_, TORCH_, CUDA_, OMP_ ...)
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
export GRADESCOPE_API_TOKEN=secret-plain LC_COURSE_TOKEN=secret-lc TORCH_HUB_TOKEN=secret-torch CUDA_TOKEN=secret-cuda
export PYTORCH_S3_KEY=secret-pytorch NVIDIA_API_KEY=secret-nvidia
echo "### root"; root_grade exercise3 --submission "$HERE" --no-perf 2>&1 | grep -v '^$'
P=$(user_copy "$HERE" a10); echo "### uid 65534 (as_user clears the environment: set through env)"
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP LC_COURSE_TOKEN=secret-lc TORCH_HUB_TOKEN=secret-torch GRADESCOPE_API_TOKEN=secret-plain NVIDIA_API_KEY=secret-nvidia lumen-grade exercise3 --submission "$P" --no-perf 2>&1 | grep -v '^$')
leftovers
