# shellcheck shell=sh
#@ desc: benchmark (run by name only): probe read --small-pages against dd iflag=direct, paired rounds at 4K, 64K, 1M
#@ needs: citune
#@ bench: bench/probe-vs-dd.sh's comparison on the emulated ARMv7 CPU
#@ timeout: 1500
# The same comparison as bench/probe-vs-dd.sh, on the board: the USB disk on
# host1, O_DIRECT reads of BS bytes by busybox dd and by citune, one pass
# each, ROUNDS paired rounds (dd first in odd rounds, last in even ones),
# ratios per round against that round's dd, medians of the ratios. The
# CPU is the child's user+system time (busybox time -v, getrusage, 10 ms
# steps), start-up included. Rates: busybox dd prints none, so dd's is its
# bytes over its wall time (a static busybox starts in about a
# millisecond), citune's its own elapsed_ns, as on the host. Emulated
# figures compare the two tools on the same emulated CPU only. The goals
# (rate >= 0.98, CPU <= 1.10 of dd's) are printed, not asserted: a
# benchmark on a shared machine is no test.

ROUNDS=5
ROWS=small
check "USB stack loads, disk on host1" load_usb

# timed NAME CMD...: runs CMD under busybox time -v; prints
# "bytes seconds cpu" (the rate's bytes and seconds, CPU seconds)
timed() {
	_n=$1
	shift
	busybox time -v "$@" >/tmp/pvd.out 2>/tmp/pvd.err || {
		cat /tmp/pvd.out /tmp/pvd.err
		return 1
	}
	_cpu=$(awk -F': ' '/User time|System time/ {c += $2} END {print c}' /tmp/pvd.err)
	case $_n in
	dd)
		# "0m 4.45s" (or "1h 2m 03s")
		_wall=$(sed -n 's/.*Elapsed (wall clock) time.*: *//p' /tmp/pvd.err | awk '{
			s = 0
			for (i = 1; i <= NF; i++) {
				u = substr($i, length($i)); v = substr($i, 1, length($i) - 1) + 0
				s += (u == "h" ? 3600 : u == "m" ? 60 : 1) * v
			}
			print s
		}')
		_bytes=$(awk '/records in/ {split($1, a, "+"); print a[1]}' /tmp/pvd.err)
		echo "$((_bytes * PVD_BS)) $_wall $_cpu"
		;;
	*)
		_bytes=$(awk -F': ' '/"bytes"/ {gsub(/,/, "", $2); print $2; exit}' /tmp/pvd.out)
		_secs=$(awk -F': ' '/"elapsed_ns"/ {gsub(/,/, "", $2); print $2 / 1e9; exit}' /tmp/pvd.out)
		echo "$_bytes $_secs $_cpu"
		;;
	esac
}

# The row: the read loop as bench/probe-vs-dd.sh measures it on the host,
# with the interrupt accounting of the controller's line (--irq skips the
# board detection, which is start-up; `citune version` is timed below) and
# without the handler trace, whose cost per interrupt the bench measures
# on its own (IRQ=...; in this emulation it is most of a default run's CPU).
row() { # row NAME: the command of a row
	case $1 in
	small) echo "citune probe read --irq 2184200.usb --no-trace" ;;
	esac
}

: >/tmp/pvd.ratios
for spec in 4096:4 65536:16 1048576:32; do
	PVD_BS=${spec%%:*}
	mib=${spec#*:}
	count=$((mib * 1048576 / PVD_BS))
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		order="dd $ROWS"
		[ $((r % 2)) -eq 0 ] && order="$ROWS dd"
		for name in $order; do
			if [ "$name" = dd ]; then
				fig=$(timed dd dd if=/dev/sda of=/dev/null bs="$PVD_BS" count="$count" iflag=direct) || break 2
				echo "$fig" >/tmp/pvd.dd
			else
				# shellcheck disable=SC2046 # the row's command is words
				fig=$(timed "$name" $(row "$name") --bs "$PVD_BS" --size "${mib}M" --repeat 1 --warmup 0 --small-pages --json /dev/sda) || break 2
				echo "$fig" >"/tmp/pvd.$name"
			fi
			echo "PVD-RUN: bs $PVD_BS round $r $name $fig (bytes s cpu-s), context switches $(awk -F': ' '/ontext switches/ {printf "%s ", $2}' /tmp/pvd.err)"
		done
		for name in $ROWS; do
			# rate ratio and CPU ratio against this round's dd
			paste -d' ' "/tmp/pvd.$name" /tmp/pvd.dd | awk -v bs="$PVD_BS" -v n="$name" \
				'$2 > 0 && $5 > 0 && $6 > 0 {print bs, n, ($1 / $2) / ($4 / $5), $3 / $6, $1 / $2 / 1048576, $4 / $5 / 1048576, $3, $6}' >>/tmp/pvd.ratios
		done
		r=$((r + 1))
	done
done

expect_grep ' small ' /tmp/pvd.ratios "every block size measured"
# start-up alone, for the fixed part of the figures below
for r in 1 2 3; do
	timed citune citune version >/dev/null
	awk -F': ' '/User time|System time/ {c += $2} END {print "PVD: start-up (citune version): cpu " c " s"}' /tmp/pvd.err
done
# medians per block size and row: rate ratio, CPU ratio, and the rows'
# own medians (MiB/s and CPU seconds of citune and of dd)
echo "PVD: medians over $ROUNDS paired rounds on $(uname -m) (busybox time -v CPU, 10 ms steps)"
echo "PVD: bs      row     rate/dd  cpu/dd  citune MiB/s  dd MiB/s  citune cpu s  dd cpu s"
for bs in 4096 65536 1048576; do
	for name in $ROWS; do
		awk -v bs="$bs" -v n="$name" '$1 == bs && $2 == n' /tmp/pvd.ratios | awk '
			function med(k,   i, j, t, m) {
				m = 0
				for (i = 1; i <= NR; i++) v[i] = col[i, k]
				for (i = 2; i <= NR; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
				return NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			}
			{ for (k = 3; k <= 8; k++) col[NR, k] = $k; bs = $1; n = $2 }
			END {
				if (NR == 0) exit
				r = med(3); c = med(4)
				printf "PVD: %-7s %-6s %7.3f %7.3f %13.2f %9.2f %13.2f %9.2f   rate %s, cpu %s\n", bs, n, r, c, med(5), med(6), med(7), med(8),
					(r >= 0.98 ? "meets >= 0.98" : "MISSES >= 0.98"), (c <= 1.10 ? "meets <= 1.10" : "MISSES <= 1.10")
			}'
	done
done
