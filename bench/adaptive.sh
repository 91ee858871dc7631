#!/usr/bin/env bash
# bench/adaptive.sh: on the simulated controller with the sim probe's
# model (probe/sim.go: wire limit, AHB burst efficiency, ITC latency,
# 0.5 % run noise), how many probe runs the adaptive mode needs against
# the full grid, and whether it finds the grid's winner.
# Goal: the same winner with at most 40 % of the grid's probe runs.
#
# usage: bench/adaptive.sh [SEEDS] [WARMUPS]   (default "1 2 3 4 5", "0 1")
# Each seed shuffles the order (--seed) and draws the probe's noise (sim
# --seed). Exit status 1 when the goal is missed for any seed.
#
# A second, harder landscape follows for information (not part of the
# goal): sweep/sweeptest's, with close competitors and 1 % or 2 % run
# noise, through the Go API (TestAdaptiveBench in sweep/sweep_test.go).
set -euo pipefail
cd "$(dirname "$0")/.."

seeds=${1:-1 2 3 4 5}
warmups=${2:-0 1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/citune" ./cmd/citune
export CITUNE_JOURNAL=$tmp/journal.json

# 3 x 4 x 8 = 96 combinations; at AHBBRST=1 and 3 the burst size is
# ignored by the hardware, so the grid measures 32 + 8 + 8 = 48 points.
axes=(--axis AHBBRST=0,1,3 --axis RXPBURST=1,2,4,5 --axis ITC=0,1,2,4,8,16,32,64)
repeat=5

winner() { sed -n 's/^winner: \([^:]*\): .*/\1/p' "$1"; }
runs() { sed -n 's/^probe runs: \([0-9]*\).*/\1/p' "$1"; }

echo "landscape: citune --sim sweep ${axes[*]} --repeat $repeat -- sim"
printf '%-7s %-5s %6s %9s %7s  %-5s %s\n' warmup seed grid adaptive ratio same "winner (grid / adaptive)"
fail=0
for w in $warmups; do
	sum_g=0 sum_a=0 same_n=0 n=0
	for s in $seeds; do
		for mode in grid adaptive; do
			out=$tmp/$mode-$w-$s
			"$tmp/citune" --sim sweep "${axes[@]}" --repeat $repeat --warmup "$w" --settle 0 \
				--mode $mode --seed "$s" --out "$out.jsonl" -- sim --seed "$s" >"$out.out" 2>"$out.err" || {
				echo "citune failed ($mode, seed $s):" >&2
				cat "$out.err" >&2
				exit 2
			}
		done
		g=$(runs "$tmp/grid-$w-$s.out") a=$(runs "$tmp/adaptive-$w-$s.out")
		gw=$(winner "$tmp/grid-$w-$s.out") aw=$(winner "$tmp/adaptive-$w-$s.out")
		same=no
		if [ "$gw" = "$aw" ]; then
			same=yes
			same_n=$((same_n + 1))
		elif grep -q "^ *[0-9]*= $aw " "$tmp/grid-$w-$s.out"; then
			same="tied" # the grid itself finds no significant difference
		fi
		ratio=$(awk -v a="$a" -v g="$g" 'BEGIN { printf "%.0f %%", 100 * a / g }')
		printf '%-7s %-5s %6d %9d %7s  %-5s %s\n' "$w" "$s" "$g" "$a" "$ratio" "$same" "$gw / $aw"
		if [ "$same" != yes ] || [ $((a * 100)) -gt $((g * 40)) ]; then
			fail=1
		fi
		sum_g=$((sum_g + g)) sum_a=$((sum_a + a)) n=$((n + 1))
	done
	awk -v a="$sum_a" -v g="$sum_g" -v s="$same_n" -v n="$n" -v w="$w" \
		'BEGIN { printf "warm-up %s: adaptive used %d of the grid'"'"'s %d probe runs (%.0f %%); same winner %d of %d\n", w, a, g, 100 * a / g, s, n }'
done
if [ $fail = 0 ]; then
	echo "goal met: the same winner with at most 40 % of the grid's probe runs, every seed"
else
	echo "goal MISSED for at least one seed (see above)"
fi

echo
CITUNE_BENCH=1 go test -count=1 -v -run '^TestAdaptiveBench$' ./sweep | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'
exit $fail
