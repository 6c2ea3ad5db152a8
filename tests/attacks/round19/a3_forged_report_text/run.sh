#!/bin/bash
/work/round19/run_both.sh exercise5 "$(dirname "$0")"
