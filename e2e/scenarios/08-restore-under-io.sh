# shellcheck shell=sh
#@ desc: citune restore while the disk is busy writes only the fields citune changed: USBCMD's run and schedule bits and the list addresses stay the driver's, and the disk keeps working
#@ needs: citune

check "USB stack loads, disk on host1" load_usb
CMD=$(hexadd "$USBH1_BASE" 0x140)
ASYNC=$(hexadd "$USBH1_BASE" 0x158)
PERIODIC=$(hexadd "$USBH1_BASE" 0x154)
BURST=$(hexadd "$USBH1_BASE" 0x160)

# Change a knob in USBCMD (ITC, beside the driver's RS/ASE/PSE bits) and
# one in BURSTSIZE while the controller is idle.
check "set ITC=16 TXPBURST=8" ct --controller usbh1 set ITC=16 TXPBURST=8
expect_grep '"field": "ITC"' "$E2E_JOURNAL" "the journal records USBCMD.ITC, a field"
expect_no_grep '"register": "ASYNCLISTADDR"' "$E2E_JOURNAL" "the journal records no list address"
A0=$(rd32 "$ASYNC")
P0=$(rd32 "$PERIODIC")

# Live state is refused outright.
expect_fail 2 "set ASYNCLISTADDR is refused" ct --controller usbh1 set ASYNCLISTADDR=0x10000000
expect_grep 'live state is not a knob' "$E2E_OUT" "the refusal says live state is not a knob"
expect_fail 2 "set USBCMD.ASE=0 is refused" ct --controller usbh1 set USBCMD.ASE=0
check "devmem ASYNCLISTADDR" rd32 "$ASYNC"
expect_grep "^$A0\$" "$E2E_OUT" "ASYNCLISTADDR untouched by the refused writes"

# Disk I/O in the background (the async schedule runs), restore in the
# middle of it.
e2e_say "reading the disk in the background"
(
	i=0
	while [ $i -lt 40 ]; do
		dd if=/dev/sda of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null || { echo "dd failed" >/tmp/io.err; exit 1; }
		i=$((i + 1))
	done
) &
IO=$!
sleep 0.3
check "citune restore during disk I/O" ct restore
expect_grep 'restoring /dev/mem 0x02184200 \(qemu-sabrelite usbh1\)' "$E2E_OUT" "restore names the physical address it writes"
expect_no_grep 'ASYNCLISTADDR|PERIODICLISTBASE|USBCMD.RS|USBCMD.ASE' "$E2E_OUT" "restore wrote no list address and no run/schedule bit"
check "the background reads finished without an error" wait "$IO"
check "no dd failure" test ! -e /tmp/io.err
check "devmem USBCMD" rd32 "$CMD"
expect_grep '^0x000100[0-9A-Fa-f][13579BbDdFf]$' "$E2E_OUT" "USBCMD: ITC 1 again, RS still 1"
check "devmem BURSTSIZE" rd32 "$BURST"
expect_grep '^0x00001010$' "$E2E_OUT" "BURSTSIZE back to the device tree's 0x1010"
check "devmem ASYNCLISTADDR" rd32 "$ASYNC"
check "devmem PERIODICLISTBASE" rd32 "$PERIODIC"
expect_grep "^$P0\$" "$E2E_OUT" "PERIODICLISTBASE unchanged"
check "no journal left" test ! -e "$E2E_JOURNAL"
check "the disk reads after restore" dd if=/dev/sda of=/dev/null bs=1M count=4 iflag=direct
