#!/usr/bin/env bash
# bench/startup.sh: the CPU and peak memory of a register command
# (`citune get ITC`, on the simulator and on a register image) against a
# minimal static C reader of the same image (open, pread the 32-bit
# USBCMD word at 0x140, print ITC, bits 23:16), built here with gcc
# -static -O2, and against an empty Go program (`func main() {}`, built
# as ./release builds citune): the Go runtime's own floor, which no Go
# command goes below. perf stat's task-clock over many runs (user + system CPU
# of the process, start-up included; the least of 3 means), /usr/bin/time's
# maximum resident set size. `citune version`'s row is this binary's own
# floor.
#
# Goal (issue 28): citune at most 2x the C reader's CPU, peak RSS at most
# 6 MB. The machine's other load moves the figures; run it on a quiet
# one, several times.
#
# usage: bench/startup.sh [RUNS]   (default 200)
# Exit status 1 when a goal is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GOARCH=$(go env GOARCH) ./release "$tmp/citune" # as it ships, for this machine
export CITUNE_JOURNAL=$tmp/journal.json
"$tmp/citune" mkimage --profile imx6q --controller usbh1 "$tmp/usbh1.bin" >/dev/null 2>&1
cat >"$tmp/reader.c" <<'C'
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
	uint32_t v;
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0 || pread(fd, &v, 4, 0x140) != 4)
		return 1;
	printf("USBCMD.ITC=%u\n", (v >> 16) & 0xff);
	return 0;
}
C
gcc -static -O2 -o "$tmp/reader" "$tmp/reader.c"
mkdir "$tmp/empty"
printf 'package main\n\nfunc main() {}\n' >"$tmp/empty/main.go"
printf 'module empty\n' >"$tmp/empty/go.mod"
(cd "$tmp/empty" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/emptygo" .)
cpu() { # task-clock in ms: the least of 3 means over $runs/3 runs each
	# (the other workers' load only ever adds to a mean)
	for _ in 1 2 3; do
		perf stat -x, -e task-clock -r "$(((runs + 2) / 3))" "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}'
	done | sort -g | head -n 1
}
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
c=$(cpu "$tmp/reader" "$tmp/usbh1.bin")
crss=$(rss "$tmp/reader" "$tmp/usbh1.bin")
e=$(cpu "$tmp/emptygo")
erss=$(rss "$tmp/emptygo")
printf '%-40s %9s %7s %9s %9s\n' command "CPU ms" "/ C" "/ emptyGo" "peak RSS"
printf '%-40s %9.3f %6sx %9s %6d KB\n' "C reader" "$c" 1.0 "" "$crss"
printf '%-40s %9.3f %6sx %8sx %6d KB\n' "empty Go program (the runtime's floor)" "$e" \
	"$(awk -v e="$e" -v c="$c" 'BEGIN { printf "%.1f", e / c }')" 1.0 "$erss"
# citune version: this binary's own floor (the runtime's start-up for a
# binary of its size and every linked package's init), not judged.
v=$(cpu "$tmp/citune" version)
printf '%-40s %9.3f %6sx %8sx %6d KB\n' "citune version (the binary's floor)" "$v" \
	"$(awk -v g="$v" -v c="$c" 'BEGIN { printf "%.1f", g / c }')" \
	"$(awk -v g="$v" -v e="$e" 'BEGIN { printf "%.1f", g / e }')" "$(rss "$tmp/citune" version)"
fail=0
for args in "--sim get ITC" "--mem-file $tmp/usbh1.bin get ITC"; do
	# shellcheck disable=SC2086
	g=$(cpu "$tmp/citune" $args)
	# shellcheck disable=SC2086
	m=$(rss "$tmp/citune" $args)
	r=$(awk -v g="$g" -v c="$c" 'BEGIN { printf "%.1f", g / c }')
	re=$(awk -v g="$g" -v e="$e" 'BEGIN { printf "%.1f", g / e }')
	printf '%-40s %9.3f %6sx %8sx %6d KB\n' "citune ${args/$tmp\//}" "$g" "$r" "$re" "$m"
	awk -v g="$g" -v c="$c" -v m="$m" 'BEGIN { exit !(g <= 2 * c && m <= 6000) }' || fail=1
done
awk -v e="$e" -v c="$c" 'BEGIN { if (e > 2 * c) printf "note: an empty Go program alone costs %.1fx the C reader: the CPU goal lies below the Go runtime'"'"'s floor\n", e / c }'
[ $fail = 0 ] && echo "goal met" || echo "goal MISSED (at most 2x the C reader's CPU and 6 MB)"
exit $fail
