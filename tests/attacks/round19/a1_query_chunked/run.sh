#!/bin/bash
/work/round19/run_both.sh exercise10 "$(dirname "$0")"
