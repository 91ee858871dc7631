#!/usr/bin/env bash
# bench/adaptive.sh: how many probe runs the adaptive mode needs against
# the full grid, and whether it finds the grid's winner, on the one
# throughput model (simmodel, through the sim probe) in two scenarios:
#
#  1. the CLI: citune --sim on the imx6q board as Linux leaves it (no
#     simulated ehci-hcd, so ITC holds), the AHB 80 % busy (idle, the
#     disk's own rate hides the burst lengths and the top is flat), run
#     noise NOISE;
#  2. close competitors: the same board and load, 1 % and 2 % run noise,
#     through the Go API (TestAdaptiveBench in sweep/adaptive_test.go).
#
# Goal: in every seed at 2 % noise and at every warm-up count asked for
# (citune sweep's default is 1), the grid's winner or one the grid itself
# calls tied (not significantly slower than its best), with at most 35 %
# of the grid's probe runs. Probe runs are counted alike in both modes:
# every run of the probe, warm-ups, the adaptive screening runs and the
# baseline's included (the "probe runs:" line, sweep.Outcome.ProbeRuns).
#
# Every seed also runs the grid again with its order and noise drawn
# from seed+1000 ("again"), judged the same way: how often the grid
# agrees with itself.
#
# Figures (2 % noise, repeat 5; bench/adaptive.sh "$(seq -s' ' 1 20)"
# "0 1 2"; grid / adaptive probe runs, ratio over the seeds, worst seed;
# the race's winner the grid's / tied / missed; the grid again agreeing):
#     scenario 1  warm-up 0: 5500 / 1313, 24 %, worst 25.5 %, 13/7/0, 15 of 20
#                 warm-up 1: 6600 / 1691, 26 %, worst 33.3 %, 13/7/0, 15 of 20
#                 warm-up 2: 7700 / 1848, 24 %, worst 33.2 %, 14/6/0, 14 of 20
#     scenario 2  warm-up 0: 3300 /  920, 28 %, worst 33 %,   15/5/0, 15 of 20
#                 warm-up 1: 3960 / 1071, 27 %, worst 32 %,   11/9/0, 15 of 20
#                 warm-up 2: 4620 / 1252, 27 %, worst 33 %,   15/5/0, 16 of 20
#   The race's budget (a third of the grid's runs, citune sweep's
#   default) holds in every seed by construction. Over seeds 1-100 the
#   race misses in 5 of 600 cases (4 of them out of budget), a second
#   grid in 159: the grid's own top two are 4 % apart, two standard
#   errors of 5 runs at 2 % noise (README.md, "Adaptive sweeps").
# How the race spends its runs: sweep/adaptive.go; README.md, "Adaptive
# sweeps".
#
# usage: bench/adaptive.sh [SEEDS] [WARMUPS] [NOISE]
#        (default "1 2 3 4 5", "0 1", 0.02)
# Each seed shuffles the order (--seed) and draws the probe's noise (sim
# --seed). Exit status 1 when the goal is missed for any seed.
set -euo pipefail
cd "$(dirname "$0")/.."

seeds=${1:-1 2 3 4 5}
warmups=${2:-0 1}
noise=${3:-0.02}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/citune" ./cmd/citune
export CITUNE_JOURNAL=$tmp/journal.json

# 3 x 4 x 7 = 84 combinations; at AHBBRST=1 and 3 the burst size is
# ignored by the hardware, so the grid measures 28 + 7 + 7 = 42 points.
# ITC takes the values host role can make permanent (2^N through
# ehci_hcd.log2_irq_thresh): the race drops a point it could never
# recommend, the grid would still rank it.
axes=(--axis AHBBRST=0,1,3 --axis RXPBURST=4,8,16,32 --axis ITC=1,2,4,8,16,32,64)
repeat=5

# winner: the ranking's first point (the settings of its "  1 " or "  1= " row).
winner() { sed -n 's/^ *1[= ] \(.*[^ ]\)  *[0-9.][0-9.]* MiB\/s.*/\1/p' "$1" | head -n 1; }
# runs: the probe runs without the verdict's second look (outside the
# race's budget, and taken by the grid too when a point is promising):
# what the race and the grid cost to rank.
runs() {
	n=$(sed -n 's/^probe runs: \([0-9]*\).*/\1/p' "$1")
	c=$(sed -n "s/^probe runs: .*the verdict's second look: \([0-9]*\) of them.*/\1/p" "$1")
	echo $((n - ${c:-0}))
}

echo "scenario 1: citune --sim --sim-driver=false sweep ${axes[*]} --repeat $repeat -- sim --noise $noise --bus-load 0.8"
printf '%-7s %-5s %6s %9s %7s  %-5s %-6s %s\n' warmup seed grid adaptive ratio same "again" "winner (grid / adaptive)"
fail=0
for w in $warmups; do
	sum_g=0 sum_a=0 same_n=0 again_n=0 n=0 worst=0
	for s in $seeds; do
		# grid2: the grid again, its order and noise drawn from seed+1000:
		# how often the grid agrees with itself, judged as the race is.
		for mode in grid adaptive grid2; do
			out=$tmp/$mode-$w-$s
			sd=$s
			[ $mode = grid2 ] && sd=$((s + 1000))
			"$tmp/citune" --sim --sim-driver=false sweep "${axes[@]}" --repeat $repeat --warmup "$w" --settle 0 \
				--mode "${mode%2}" --seed "$sd" --out "$out.jsonl" -- sim --seed "$sd" --noise "$noise" --bus-load 0.8 >"$out.out" 2>"$out.err" || {
				echo "citune failed ($mode, seed $sd):" >&2
				cat "$out.err" >&2
				exit 2
			}
		done
		g=$(runs "$tmp/grid-$w-$s.out") a=$(runs "$tmp/adaptive-$w-$s.out")
		gw=$(winner "$tmp/grid-$w-$s.out") aw=$(winner "$tmp/adaptive-$w-$s.out") g2w=$(winner "$tmp/grid2-$w-$s.out")
		# judge: yes (the grid's winner), tied (one the grid itself finds
		# not significantly slower than its winner) or no.
		judge() {
			if [ "$gw" = "$1" ]; then
				echo yes
			elif grep -q "^ *[0-9]*= $1 " "$tmp/grid-$w-$s.out"; then
				echo tied
			else
				echo no
			fi
		}
		same=$(judge "$aw") again=$(judge "$g2w")
		[ "$same" = yes ] && same_n=$((same_n + 1))
		[ "$again" != no ] && again_n=$((again_n + 1))
		ratio=$(awk -v a="$a" -v g="$g" 'BEGIN { printf "%.0f %%", 100 * a / g }')
		printf '%-7s %-5s %6d %9d %7s  %-5s %-6s %s\n' "$w" "$s" "$g" "$a" "$ratio" "$same" "$again" "$gw / $aw"
		if [ "$same" = no ] || [ $((a * 100)) -gt $((g * 35)) ]; then
			fail=1
		fi
		sum_g=$((sum_g + g)) sum_a=$((sum_a + a)) n=$((n + 1))
		worst=$(awk -v a="$a" -v g="$g" -v w="$worst" 'BEGIN { r = 100 * a / g; print (r > w ? r : w) }')
	done
	awk -v a="$sum_a" -v g="$sum_g" -v s="$same_n" -v n="$n" -v w="$w" -v x="$worst" -v ag="$again_n" \
		'BEGIN { printf "warm-up %s: adaptive used %d of the grid'"'"'s %d probe runs (%.0f %%, worst seed %.1f %%); same winner %d of %d; a second grid agreed (same or tied) in %d of %d\n", w, a, g, 100 * a / g, x, s, n, ag, n }'
done
if [ $fail = 0 ]; then
	echo "scenario 1: goal met: the grid's winner or one it calls tied in every seed, with at most 35 % of its probe runs"
else
	echo "goal MISSED for at least one seed (see above)"
fi

echo
out=$(CITUNE_BENCH=1 CITUNE_BENCH_SEEDS="$seeds" CITUNE_BENCH_WARMUPS="$warmups" go test -count=1 -v -run '^TestAdaptiveBench$' ./sweep) || fail=1
grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok' <<<"$out"
exit $fail
