# shellcheck shell=sh
#@ desc: kill -9 during a sweep (module parameter + register axes): a new sweep refuses to start; citune restore reloads the driver and puts the register back
#@ needs: citune

check "USB stack loads, disk on host1" load_usb
CMD=$(hexadd "$USBH1_BASE" 0x140)
FILL=$(hexadd "$USBH1_BASE" 0x164)
PARAM=/sys/module/ehci_hcd/parameters/log2_irq_thresh
R=/tmp/killed.jsonl

# One point (log2_irq_thresh=6 with TXFIFOTHRES=2) after the baseline;
# kill -9 while the point's probe runs.
e2e_say "starting a sweep in the background"
# (citune itself, not the ct function: a function would run in a forked
# shell and $! would be that shell's pid, not citune's)
citune --journal "$E2E_JOURNAL" --controller usbh1 sweep \
	--axis modparam:ehci_hcd.log2_irq_thresh=6 --axis TXFIFOTHRES=2 \
	--repeat 3 --warmup 0 --settle 0 --seed 1 --out "$R" -- read --size 4M /dev/sda >/tmp/killed.out 2>&1 &
PID=$!
i=0
until grep -q '"type":"run".*"visit":2' "$R" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -ge 900 ] && break # 90 s
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.1
done
check "the sweep is probing its point" grep -q '"type":"run".*"visit":2' "$R"
check "kill -9 the sweep" kill -9 "$PID"
wait "$PID"
check "no citune process is left" sh -c '! pidof citune'
run cat /tmp/killed.out

# The point's settings are still in force and the journal keeps the originals.
check "log2_irq_thresh after the kill" cat "$PARAM"
expect_grep '^6$' "$E2E_OUT" "ehci-hcd still runs with log2_irq_thresh=6"
check "devmem USBCMD" rd32 "$CMD"
expect_grep '^0x0040' "$E2E_OUT" "USBCMD.ITC is 64"
check "devmem TXFILLTUNING" rd32 "$FILL"
expect_grep '^0x00020000$' "$E2E_OUT" "TXFILLTUNING.TXFIFOTHRES is 2"
check "journal kept" test -s "$E2E_JOURNAL"
expect_grep '"name": "ehci_hcd.log2_irq_thresh"' "$E2E_JOURNAL" "journal holds the module parameter"
expect_grep '"field": "TXFIFOTHRES"' "$E2E_JOURNAL" "journal holds TXFILLTUNING.TXFIFOTHRES"

# A new sweep does not start over the killed one's originals.
expect_fail 1 "a new sweep is refused" ct --controller usbh1 sweep --axis TXFIFOTHRES=1 --out /tmp/new.jsonl -- read --size 1M /dev/sda
expect_grep 'interrupted session, citune sweep.*citune restore' "$E2E_OUT" "the refusal names the killed sweep and points at citune restore"
check "devmem TXFILLTUNING" rd32 "$FILL"
expect_grep '^0x00020000$' "$E2E_OUT" "the refused sweep wrote nothing"

# citune restore: driver reloaded with the original parameter, register back.
check "citune restore" ct restore
expect_grep 'restoring /dev/mem 0x02184200 \(qemu-sabrelite usbh1\)' "$E2E_OUT" "restore names the target it writes"
expect_grep 'restored usbh1 ehci_hcd.log2_irq_thresh = 0$' "$E2E_OUT" \
	"restore reloads the driver stack with log2_irq_thresh=0"
expect_grep 'restored usbh1 TXFILLTUNING.TXFIFOTHRES = 0( \(already\))?$' "$E2E_OUT" "restore puts TXFILLTUNING.TXFIFOTHRES back (the reload's controller reset may have done it)"
expect_grep 'restored and removed' "$E2E_OUT" "restore removes the journal"
check "log2_irq_thresh after restore" cat "$PARAM"
expect_grep '^0$' "$E2E_OUT" "ehci-hcd runs with log2_irq_thresh=0 again"
check "devmem USBCMD" rd32 "$CMD"
expect_grep '^0x0001' "$E2E_OUT" "USBCMD.ITC is 1 again"
check "devmem TXFILLTUNING" rd32 "$FILL"
expect_grep '^0x00000000$' "$E2E_OUT" "TXFILLTUNING is 0 again"
check "no journal left" test ! -e "$E2E_JOURNAL"
check "the disk reads after restore" dd if=/dev/sda of=/dev/null bs=1M count=4 iflag=direct
