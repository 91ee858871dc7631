#!/usr/bin/env bash
# probe-vs-dd.sh: does `citune probe read` read as fast as `dd iflag=direct`,
# and at what CPU cost?
#
# Builds citune as released (stripped, -trimpath), makes a test file on the
# local disk, then reads it with
#   dd if=FILE of=/dev/null bs=BS iflag=direct
#   citune probe read --bs BS --size all --repeat 1 FILE            (the default: sample check)
#   citune probe read --bs BS --size all --repeat 1 --full-hash FILE
#   citune probe read --bs BS --size all --repeat 1 --no-hash FILE
#   citune probe read --bs BS --size all --repeat 1 --small-pages FILE
# (the last is what the probe costs where the kernel has no transparent
# huge pages, as on the 32-bit ARM boards: see probe.newAlignedBuf)
# in several rounds, alternating which goes first. Run it as root, as users
# run citune (the handler trace needs tracefs). Throughput is each
# tool's own timing of its reads (dd's "copied, N s", citune's elapsed_ns);
# CPU is user+system time of the child process from getrusage (bash's
# `time`), start-up included. Prints per-round figures and the ratios
# against dd: throughput (goal >= 0.98) and CPU seconds per GiB (goal
# <= 1.10), over all rounds and of the median rounds (which a busy machine
# disturbs less).
#
# Environment: SIZE_MIB (default 512), BS (1M), ROUNDS (7),
# DIR (where the test file goes; default /var/tmp/citune-bench).
#
# The interrupt-handler trace: with IRQ set to the interrupt line of the
# disk holding DIR, as /proc/interrupts names it (virtio1-req.0, say), and
# tracefs mounted, the script also reads 64 MiB with 4 KiB blocks (many
# interrupts) with and without the trace (--irq IRQ, --no-trace) and
# prints what the trace costs per interrupt, in CPU of the whole process
# and in the kernel time of the whole machine (/proc/stat), which is
# where recording the events costs.
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-512}
BS=${BS:-1M}
ROUNDS=${ROUNDS:-7}
DIR=${DIR:-/var/tmp/citune-bench}

top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR"
citune="$DIR/citune"
file="$DIR/test-${SIZE_MIB}M.bin"

echo "building citune"
GOARCH=$(go env GOARCH) GOARM= "$top/release" "$citune"

want=$((SIZE_MIB * 1024 * 1024))
if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -ne "$want" ]; then
	echo "writing $file ($SIZE_MIB MiB of random data)"
	head -c "$want" /dev/urandom >"$file.tmp"
	sync "$file.tmp"
	mv "$file.tmp" "$file"
fi

TIMEFORMAT='%3U %3S'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: runs CMD, appends "bytes seconds cpu" to $tmp/NAME.
run() {
	local name=$1
	shift
	local t bytes secs
	t=$({ time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>&1)
	case $name in
	dd)
		# 536870912 bytes (537 MB, 512 MiB) copied, 0.43 s, 1.2 GB/s
		bytes=$(awk '/copied/ {print $1}' "$tmp/err")
		secs=$(awk -F', ' '/copied/ {split($(NF-1), a, " "); print a[1]}' "$tmp/err")
		;;
	*)
		bytes=$(awk -F': ' '/"bytes"/ {gsub(/,/, "", $2); print $2; exit}' "$tmp/out")
		secs=$(awk -F': ' '/"elapsed_ns"/ {gsub(/,/, "", $2); print $2 / 1e9; exit}' "$tmp/out")
		;;
	esac
	if [ -z "$bytes" ] || [ -z "$secs" ]; then
		echo "$name: no figures in its output:" >&2
		cat "$tmp/out" "$tmp/err" >&2
		exit 1
	fi
	echo "$bytes $secs $t" | awk '{print $1, $2, $3 + $4}' >>"$tmp/$name"
	echo "$bytes $secs $t" | awk -v n="$name" '{printf "  %-14s %8.1f MiB/s  cpu %.3f s\n", n, $1 / $2 / 1048576, $3 + $4}'
}

dd_cmd=(dd if="$file" of=/dev/null bs="$BS" iflag=direct)
hash_cmd=("$citune" probe read --bs "$BS" --size all --repeat 1 --json "$file")
full_cmd=("$citune" probe read --bs "$BS" --size all --repeat 1 --full-hash --json "$file")
nohash_cmd=("$citune" probe read --bs "$BS" --size all --repeat 1 --no-hash --json "$file")
small_cmd=("$citune" probe read --bs "$BS" --size all --repeat 1 --small-pages --json "$file")

echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(uname -sr)"
echo "file: $file on $(df --output=source,fstype "$DIR" | tail -1 | tr -s ' '), bs $BS, $ROUNDS rounds"
for r in $(seq 1 "$ROUNDS"); do
	echo "round $r"
	if [ $((r % 2)) -eq 1 ]; then
		run dd "${dd_cmd[@]}"
		run citune "${hash_cmd[@]}"
		run citune-full "${full_cmd[@]}"
		run citune-nohash "${nohash_cmd[@]}"
		run citune-small "${small_cmd[@]}"
	else
		run citune-small "${small_cmd[@]}"
		run citune-nohash "${nohash_cmd[@]}"
		run citune-full "${full_cmd[@]}"
		run citune "${hash_cmd[@]}"
		run dd "${dd_cmd[@]}"
	fi
done

# median: the median of a column of numbers on stdin
median() {
	sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'
}
# totals NAME: MiB/s over all rounds, median MiB/s, CPU s per GiB over all
# rounds, median CPU s per GiB (a busy machine disturbs medians less)
totals() {
	local med cmed
	med=$(awk '{print $1 / $2 / 1048576}' "$tmp/$1" | median)
	cmed=$(awk '{print $3 / ($1 / 1073741824)}' "$tmp/$1" | median)
	awk -v med="$med" -v cmed="$cmed" '{b += $1; s += $2; c += $3} END {printf "%.6f %.6f %.6f %.6f\n", b / s / 1048576, med, c / (b / 1073741824), cmed}' "$tmp/$1"
}
read -r dd_rate dd_med dd_cpu dd_cmed < <(totals dd)
echo
printf "%-30s %8s %8s %9s %9s %8s %8s %8s %8s\n" "" "MiB/s" "median" "CPU s/GiB" "median" "rate/dd" "median" "cpu/dd" "median"
printf "%-30s %8.1f %8.1f %9.4f %9.4f %8s %8s %8s %8s\n" "dd iflag=direct" "$dd_rate" "$dd_med" "$dd_cpu" "$dd_cmed" 1 1 1 1
for name in citune citune-full citune-nohash citune-small; do
	read -r rate med cpu cmed < <(totals "$name")
	label="citune probe read"
	[ "$name" = citune-full ] && label="citune probe read --full-hash"
	[ "$name" = citune-nohash ] && label="citune probe read --no-hash"
	[ "$name" = citune-small ] && label="citune probe read --small-pages"
	awk -v l="$label" -v r="$rate" -v m="$med" -v c="$cpu" -v cm="$cmed" -v dr="$dd_rate" -v dm="$dd_med" -v dc="$dd_cpu" -v dcm="$dd_cmed" 'BEGIN {
		printf "%-30s %8.1f %8.1f %9.4f %9.4f %8.3f %8.3f %8.3f %8.3f   throughput %s, cpu %s\n", l, r, m, c, cm, r / dr, m / dm, c / dc, cm / dcm,
			(r / dr >= 0.98 ? "meets >= 0.98" : "MISSES >= 0.98"), (c / dc <= 1.10 ? "meets <= 1.10" : "MISSES <= 1.10")
	}'
done
echo "(goals on the totals over all rounds; the medians are for a busy machine)"

[ -n "${IRQ:-}" ] || exit 0
echo
echo "handler trace: 64 MiB in 4 KiB reads, --irq $IRQ, with and without the trace, $ROUNDS rounds"
# busy: the machine's busy jiffies from /proc/stat (user..steal)
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
hz=$(getconf CLK_TCK)
for r in $(seq 1 "$ROUNDS"); do
	for t in trace notrace; do
		extra=()
		[ $t = notrace ] && extra=(--no-trace)
		b0=$(busy)
		t0=$({ time "$citune" probe read --bs 4K --size 64M --repeat 1 --irq "$IRQ" "${extra[@]}" --json "$file" >"$tmp/out" 2>"$tmp/err"; } 2>&1) || {
			cat "$tmp/err" >&2
			exit 1
		}
		b1=$(busy)
		irqs=$(awk -F': ' '/"irqs"/ {gsub(/,/, "", $2); print $2; exit}' "$tmp/out")
		# kernel time (system + irq + softirq) of the whole machine
		# during the timed run, from the run's own "cpu_s" figures
		kern=$(awk -F': ' '/"cpu_s": \{/ {in_cpu = 1; next} in_cpu && /}/ {exit} in_cpu && /"(system|irq|softirq)"/ {gsub(/,/, "", $2); k += $2} END {print k + 0}' "$tmp/out")
		echo "$t0 $irqs $((b1 - b0)) $kern" | awk -v hz="$hz" '{print $1 + $2, $3, $4 / hz, $5}' >>"$tmp/irq-$t"
	done
done
awk '{c += $1; n += $2; m += $3; k += $4} END {print c, n, m, k}' "$tmp/irq-trace" >"$tmp/sum-trace"
awk '{c += $1; n += $2; m += $3; k += $4} END {print c, n, m, k}' "$tmp/irq-notrace" >"$tmp/sum-notrace"
read -r ct nt mt kt <"$tmp/sum-trace"
read -r cn nn mn kn <"$tmp/sum-notrace"
awk -v ct="$ct" -v nt="$nt" -v mt="$mt" -v kt="$kt" -v cn="$cn" -v nn="$nn" -v mn="$mn" -v kn="$kn" 'BEGIN {
	printf "with the trace:    %d interrupts, process CPU %.3f s, machine busy %.3f s, kernel time in the timed runs %.3f s\n", nt, ct, mt, kt
	printf "without the trace: %d interrupts, process CPU %.3f s, machine busy %.3f s, kernel time in the timed runs %.3f s\n", nn, cn, mn, kn
	printf "per interrupt the trace costs %.2f us of process CPU, %.2f us of machine time, %.2f us of kernel time inside the timed runs (recording; the rest is reading the events afterwards)\n", (ct / nt - cn / nn) * 1e6, (mt / nt - mn / nn) * 1e6, (kt / nt - kn / nn) * 1e6
}'
