#!/usr/bin/env bash
# probe-vs-dd.sh: does `citune probe read` read as fast as `dd iflag=direct`,
# and at what CPU cost?
#
# Builds citune as released (stripped, -trimpath), makes a test file on the
# local disk, then, for each block size in BS, reads it with
#   dd if=FILE of=/dev/null bs=BS count=N iflag=direct
#   citune probe read --bs BS --size S --repeat 1 --warmup 0 --small-pages FILE   (judged)
#   citune probe read --bs BS --size S --repeat 1 --warmup 0 FILE                 (huge-page buffer)
#   citune probe read ... --full-hash FILE, ... --no-hash FILE                     (with EXTRA=1)
# one pass each (no warm-up run: dd makes none), in ROUNDS paired rounds:
# each round runs dd and the citune rows, dd first in odd rounds and last
# in even ones, and a row's ratios are taken against the same round's dd.
# The figures are the medians of those per-round ratios, which a busy
# machine disturbs far less than totals. The goals are judged on the
# --small-pages row, the probe as it runs on a board: no ARMv7 kernel has
# transparent huge pages (see probe.newAlignedBuf), so the default
# (huge-page) row is faster than dd only on hosts like this one.
#   rate: each tool's own timing of its reads (dd's "copied, N s",
#         citune's elapsed_ns); goal: median ratio >= 0.98
#   CPU:  user+system time of the child from getrusage (bash `time`),
#         start-up included; goal: median ratio <= 1.10
# Run it as root, as users run citune (the handler trace needs tracefs).
# The emulated ARMv7 board runs the same comparison: e2e/run probe-vs-dd
# (e2e/scenarios/14-probe-vs-dd.sh).
#
# Environment: BS (block sizes, default "4K 64K 1M"), SIZE_MIB (the test
# file, default 512), SMALL_MIB (how much the 4 KiB and smaller runs read,
# default 128), ROUNDS (9), DIR (where the test file goes; default
# /var/tmp/citune-bench), EXTRA=1 (the --full-hash and --no-hash rows too),
# PRIO=fifo (run every timed command under `chrt -f 10`, so that other
# work on a shared machine preempts neither tool; the same for both).
#
# The interrupt-handler trace: with IRQ set to the interrupt line of the
# disk holding DIR, as /proc/interrupts names it (virtio1-req.0, say), and
# tracefs mounted, the script also reads 64 MiB with 4 KiB blocks (many
# interrupts) with and without the trace (--irq IRQ, --no-trace) and
# prints what the trace costs per interrupt, in CPU of the whole process
# and in the kernel time of the whole machine (/proc/stat), which is
# where recording the events costs.
set -euo pipefail

BS=${BS:-4K 64K 1M}
SIZE_MIB=${SIZE_MIB:-512}
SMALL_MIB=${SMALL_MIB:-128}
ROUNDS=${ROUNDS:-9}
DIR=${DIR:-/var/tmp/citune-bench}

top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR"
citune="$DIR/citune"
file="$DIR/test-${SIZE_MIB}M.bin"
prio=()
[ "${PRIO:-}" = fifo ] && prio=(chrt -f 10)

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

# bytes: a block size (4K, 64K, 1M, or bytes) in bytes
bytes() {
	case $1 in
	*K) echo $((${1%K} * 1024)) ;;
	*M) echo $((${1%M} * 1048576)) ;;
	*) echo "$1" ;;
	esac
}

# run NAME CMD...: runs CMD, appends "bytes seconds cpu" to $tmp/NAME and
# sets $fig to the same.
run() {
	local name=$1
	shift
	local t bytes secs
	t=$({ time "${prio[@]}" "$@" >"$tmp/out" 2>"$tmp/err"; } 2>&1)
	case $name in
	dd*)
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
	fig=$(echo "$bytes $secs $t" | awk '{print $1, $2, $3 + $4}')
	echo "$fig" >>"$tmp/$name"
	echo "$fig" | awk -v n="$name" '{printf "  %-22s %8.1f MiB/s  cpu %.3f s\n", n, $1 / $2 / 1048576, $3}'
}

# median: the median of a column of numbers on stdin
median() {
	sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'
}

rows="small huge"
[ "${EXTRA:-}" = 1 ] && rows="small huge full nohash"
echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "file: $file on $(df --output=source,fstype "$DIR" | tail -1 | tr -s ' '), $ROUNDS paired rounds${prio:+, under ${prio[*]}}"
for bs in $BS; do
	b=$(bytes "$bs")
	mib=$SIZE_MIB
	[ "$b" -le 4096 ] && [ "$SMALL_MIB" -lt "$mib" ] && mib=$SMALL_MIB
	count=$((mib * 1048576 / b))
	dd_cmd=(dd if="$file" of=/dev/null bs="$b" count="$count" iflag=direct)
	base=("$citune" probe read --bs "$b" --size "${mib}M" --repeat 1 --warmup 0 --json)
	declare -A cmd=(
		[small]="--small-pages" [huge]="" [full]="--full-hash --small-pages" [nohash]="--no-hash --small-pages"
	)
	echo "bs $bs: $mib MiB a run"
	for r in $(seq 1 "$ROUNDS"); do
		echo " round $r"
		order="dd $rows"
		[ $((r % 2)) -eq 0 ] && order="$(echo "$rows" | tr ' ' '\n' | tac | tr '\n' ' ')dd"
		for name in $order; do
			if [ "$name" = dd ]; then
				run "dd-$bs" "${dd_cmd[@]}"
				echo "$fig" >"$tmp/dd-now"
			else
				# shellcheck disable=SC2086 # the row's flags are words
				run "$name-$bs" "${base[@]}" ${cmd[$name]} "$file"
				echo "$fig" >"$tmp/$name-now"
			fi
		done
		for name in $rows; do
			# rate ratio and CPU ratio against this round's dd
			paste -d' ' "$tmp/$name-now" "$tmp/dd-now" | awk '{print ($1 / $2) / ($4 / $5), $3 / $6}' >>"$tmp/ratio-$name-$bs"
		done
	done
done

label() {
	case $1 in
	small) echo "citune --small-pages" ;;
	huge) echo "citune (huge-page buf)" ;;
	full) echo "citune --full-hash" ;;
	nohash) echo "citune --no-hash" ;;
	esac
}
echo
echo "medians over $ROUNDS paired rounds (ratios per round against that round's dd)"
printf "%-5s %-24s %9s %10s %8s %8s\n" bs row "MiB/s" "CPU s/GiB" rate/dd cpu/dd
fails=0
for bs in $BS; do
	for name in dd $rows; do
		f="$tmp/$name-$bs"
		[ "$name" = dd ] && f="$tmp/dd-$bs"
		rate=$(awk '{print $1 / $2 / 1048576}' "$f" | median)
		cpu=$(awk '{print $3 / ($1 / 1073741824)}' "$f" | median)
		if [ "$name" = dd ]; then
			printf "%-5s %-24s %9.1f %10.4f %8s %8s\n" "$bs" "dd iflag=direct" "$rate" "$cpu" 1 1
			continue
		fi
		rr=$(cut -d' ' -f1 "$tmp/ratio-$name-$bs" | median)
		cr=$(cut -d' ' -f2 "$tmp/ratio-$name-$bs" | median)
		verdict=""
		if [ "$name" = small ]; then
			verdict=$(awk -v r="$rr" -v c="$cr" 'BEGIN {printf "rate %s, cpu %s", (r >= 0.98 ? "meets >= 0.98" : "MISSES >= 0.98"), (c <= 1.10 ? "meets <= 1.10" : "MISSES <= 1.10")}')
			awk -v r="$rr" -v c="$cr" 'BEGIN {exit !(r >= 0.98 && c <= 1.10)}' || fails=$((fails + 1))
		fi
		printf "%-5s %-24s %9.1f %10.4f %8.3f %8.3f   %s\n" "$bs" "$(label "$name")" "$rate" "$cpu" "$rr" "$cr" "$verdict"
	done
done
echo "(goals judged on the --small-pages rows: $fails of $(echo "$BS" | wc -w) block sizes miss)"

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
		t0=$({ time "$citune" probe read --bs 4K --size 64M --repeat 1 --warmup 0 --irq "$IRQ" "${extra[@]}" --json "$file" >"$tmp/out" 2>"$tmp/err"; } 2>&1) || {
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
