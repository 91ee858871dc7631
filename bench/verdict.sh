#!/usr/bin/env bash
# bench/verdict.sh: the verdict's error rates on the simulated board
# (TestVerdictBench in sweep/verdict_bench_test.go), 2 % run noise,
# repeat 5, one warm-up, grid and adaptive sweeps:
#
#   null    ten TXPBURST values on a host read (TX bursts move nothing):
#           "apply" counts false recommendations (goal: at most 5 %);
#   effect  RXPBURST=16,32 x TXPBURST=8,16,32 on the same read, 32-word RX
#           bursts about 4 % faster: "found" counts verdicts that apply
#           RXPBURST=32 (goal: at least 90 %), "minimal" those that also
#           leave TXPBURST at its original 16;
#   confirmed  the sweeps that took the verdict's second look;
#   runs/grid  probe runs per sweep (warm-ups and the second look
#           included) over the grid's runs without the second look.
#
# usage: bench/verdict.sh [SEEDS]   (default 100: seeds 1..SEEDS)
# Exit status 1 when a goal is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
CITUNE_BENCH=1 CITUNE_BENCH_SEEDS=${1:-100} go test ./sweep/ -run '^TestVerdictBench$' -count=1 -v 2>&1 |
	sed -n '/^verdict bench/,/^[-=]/p' | grep -v '^[-=]'
