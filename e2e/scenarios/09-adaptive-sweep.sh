# shellcheck shell=sh
#@ desc: adaptive sweep of BURSTSIZE (RXPBURST x TXPBURST, 16 points) with a read probe of the disk: every run holds, the race stays within its budget, BURSTSIZE is restored
#@ needs: citune

# QEMU moves data the same way whatever the burst lengths (it models no
# AHB), so every point is about as fast as every other: the race cannot
# tell them apart and its budget is what ends it (a third of the grid's
# runs is too few to race 16 points, so the least a race needs). What
# counts here is that it runs on a real kernel: the
# registers written and read back through /dev/mem with the driver bound,
# the budget kept, the originals back.
check "USB stack loads, disk on host1" load_usb
BURST=$(hexadd "$USBH1_BASE" 0x160)
R=/tmp/adaptive.jsonl

check "devmem BURSTSIZE" rd32 "$BURST"
expect_grep '^0x00001010$' "$E2E_OUT" "BURSTSIZE starts at 0x00001010 (16-word bursts, from the DT)"

check "adaptive sweep RXPBURST x TXPBURST" ct --controller usbh1 sweep --mode adaptive \
	--axis RXPBURST=4,8,16,32 --axis TXPBURST=4,8,16,32 --repeat 3 --warmup 0 --settle 0 --seed 1 \
	--out "$R" -- read --size 4M /dev/sda
cp "$E2E_OUT" /tmp/adaptive.out
expect_grep 'adaptive sweep of 16 points' /tmp/adaptive.out "the sweep races 16 points"
expect_grep '^adaptive race: .* a grid of these 16 points takes .*at most [0-9]+' /tmp/adaptive.out "the sweep announces its budget"
# The verdict's second look, when it takes one, is outside the budget.
run sh -c "sed -n 's/^probe runs: \([0-9]*\) (warm-ups included); the race.s budget: \([0-9]*\), of the grid.s \([0-9]*\)\(; the verdict.s second look: \([0-9]*\) of them.*\)\{0,1\}\$/\1 \2 \3 \5/p' /tmp/adaptive.out"
cp "$E2E_OUT" /tmp/budget.txt # runs used, budget, the grid's runs, the second look's
check "the race stays within its budget, below the grid's runs" sh -c "read n b g c </tmp/budget.txt && [ -n \"\$n\" ] && [ \$((n - \${c:-0})) -le \"\$b\" ] && [ \"\$b\" -lt \"\$g\" ]"
expect_grep '^verdict: ' /tmp/adaptive.out "the sweep states its verdict"
expect_grep '^original settings restored$' /tmp/adaptive.out "the sweep restores the original settings"
expect_no_grep 'not-held|CORRUPT' /tmp/adaptive.out "no point lost its settings or read corrupt data"
expect_no_grep '"held":false' "$R" "results: every run held its settings"
expect_grep '"type":"end".*"status":"complete","restored":true' "$R" "results: the sweep completed and restored"

check "devmem BURSTSIZE" rd32 "$BURST"
expect_grep '^0x00001010$' "$E2E_OUT" "BURSTSIZE is back to 0x00001010"
check "no journal left" test ! -e "$E2E_JOURNAL"
