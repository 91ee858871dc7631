#!/usr/bin/env bash
# bench/model.sh: the model mode (--mode model) against the full grid
# (TestModelBench in sweep/model_bench_test.go), on the simulated imx6q
# board as Linux leaves it (no simulated ehci-hcd, so ITC holds), the AHB
# 80 % busy, 2 % run noise, repeat 5:
#
#   adaptive.sh 1  bench/adaptive.sh's CLI scenario, 42 points;
#   adaptive.sh 2  its close competitors, 28 points;
#   four axes      AHBBRST=0,1,3 x TXPBURST=2..32 (7) x RXPBURST=4..32 (6)
#                  x ITC=1..64 (7): 308 points.
#
# Per scenario and warm-up count: the grid's and the model's probe runs
# (warm-ups and screening runs counted, the verdict's second look left
# out of both, as bench/adaptive.sh counts), the share and the worst
# seed's, the share of the grid as planned (a warm-up every visit, a
# baseline every 8 points: the budget's base), the model's winner the
# grid's ("same"), one the grid calls tied ("tied"), one the grid's runs
# cannot tell from its best once its pick of the fastest among its
# points is accounted for ("best?", rank.PossiblyBest: the grid's tie
# rule compares with its fastest as if it had not been picked, and two
# grids of one landscape disagree by it), or none ("missed", each
# printed); the worst true loss of either winner against the noise-free
# landscape's best; the sweeps that fell back to racing. Then the fixed
# costs of a 12-point grid (TestFixedCostBench): the share of board time
# in baseline visits, warm-ups and settling, as planned and as the data
# decide them (sweep/fixedcost.go), on a steady and a drifting board.
#
# Goal: no miss in any seed, and at most 8 % of the grid's runs in every
# seed on the 308 points. (On the small grids 8 % is fewer runs than two
# baseline visits, a run per model parameter and the winner's own runs.)
#
# Figures (seeds 1-20, warm-ups 0 and 1): no miss in 120 sweeps; on the
# 308 points 6.0 % / 6.4 % of the grid as it runs (worst 7.7 % / 7.9 %;
# before: 7.4 % / 9.9 %, the grid at warm-up 1 having got 23 % cheaper
# when its warm-ups became the data's), 5.5 % / 4.9 % of the grid as
# planned; its screening 54 runs a seed (was 64: the collapsed points
# are screened for their levels only), its screening runs first-run
# looks that count once warm-ups are skipped. With the second look
# counted in both (it is left out, as the grid's is) the worst is
# 8.2 % / 7.9 %. The small grids: 22.0-32.2 %. Worst true loss of the
# model's winner 0.9 %, the grid's 0.9 %. Fixed costs of 12 points:
# 33.9 % of board time as planned, 24.2 % by the data (warm-ups 15.9 ->
# 3.6 %; baselines as often: the first interval is baseline-every, so
# 12 points see three visits either way). Per scenario the bench also
# prints where the model's runs went, and each seed over the goal.
#
# usage: bench/model.sh [SEEDS] [WARMUPS]   (default "1 2 3 4 5", "0 1");
# CITUNE_BENCH_AGAIN=1 also runs a second grid per seed (seed+1000) and
# says how often the grid agrees with itself, judged the same way.
# Exit status 1 when the goal is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
out=$(CITUNE_BENCH=1 CITUNE_BENCH_SCENARIO="${CITUNE_BENCH_SCENARIO:-}" CITUNE_BENCH_AGAIN="${CITUNE_BENCH_AGAIN:-}" CITUNE_BENCH_SEEDS="${1:-1 2 3 4 5}" CITUNE_BENCH_WARMUPS="${2:-0 1}" go test ./sweep/ -run '^(TestModelBench|TestFixedCostBench)$' -count=1 -v -timeout 2h 2>&1) || status=1
sed -n '/^model bench/,/^[-=]/p' <<<"$out" | grep -v '^[-=]'
sed -n '/^fixed-cost bench/,/^[-=]/p' <<<"$out" | grep -v '^[-=]'
grep -E '^\s+model_bench_test.go' <<<"$out" || true
[ $status = 0 ] && echo "goal met" || echo "goal MISSED"
exit $status
