# shellcheck shell=sh
#@ desc: the other emulated boards, one boot: detect picks the QEMU profile from the real tree, dump, set and restore under the bound driver, a modparam sweep, kill -9 and restore, footprint
#@ needs: citune
#@ boards: imx6ul-evk imx7d-sabre
#@ timeout: 420

# lib.sh sets the board's addresses, labels and profiles from E2E_BOARD.
e2e_say "board $E2E_BOARD: host port $HOST_LABEL at $USBH1_BASE, expect $QEMU_PROFILE"
CMD=$(hexadd "$USBH1_BASE" 0x140)
BURST=$(hexadd "$USBH1_BASE" 0x160)
FILL=$(hexadd "$USBH1_BASE" 0x164)
PARAM=/sys/module/ehci_hcd/parameters/log2_irq_thresh

# --- detect from the real device tree, before and after the driver binds
check "device tree compatible" sh -c "tr '\\0' ' ' </proc/device-tree/compatible"
check "citune detect (no driver bound)" ct detect
expect_grep "^profile: $QEMU_PROFILE" "$E2E_OUT" "detect chooses $QEMU_PROFILE"
expect_grep "$SILICON_PROFILE: rejected" "$E2E_OUT" "detect rejects the silicon profile $SILICON_PROFILE (ID reads 0)"
check "dump $HOST_LABEL before the driver" ct --controller "$HOST_LABEL" dump
expect_grep "^$QEMU_PROFILE $HOST_LABEL" "$E2E_OUT" "dump header names the profile and $HOST_LABEL"
expect_grep 'CAPLENGTH +0x01000040' "$E2E_OUT" "CAPLENGTH/HCIVERSION 0x01000040"
expect_grep 'USBCMD +0x00080000' "$E2E_OUT" "USBCMD 0x00080000 before the driver"
expect_fail 4 "the silicon profile refuses to write" ct --profile "$SILICON_PROFILE" --controller "$HOST_LABEL" set TXFIFOTHRES=2
expect_grep 'nothing was written' "$E2E_OUT" "the refusal says nothing was written"

check "USB stack loads ($SUPPLIER first), disk on $HOST_LABEL" load_usb
check "citune detect (driver bound)" ct detect
expect_grep "^profile: $QEMU_PROFILE" "$E2E_OUT" "detect still chooses $QEMU_PROFILE with the driver bound"
check "dump $HOST_LABEL bound" ct --controller "$HOST_LABEL" dump
expect_grep 'USBCMD +0x000100[0-9a-f]1' "$E2E_OUT" "USBCMD running (RS=1, ITC=1)"
expect_grep "BURSTSIZE +$BOUND_BURST" "$E2E_OUT" "BURSTSIZE $BOUND_BURST as the tree leaves it"
check "dump $OTG_LABEL bound" ct --controller "$OTG_LABEL" dump
expect_grep "^$QEMU_PROFILE $OTG_LABEL" "$E2E_OUT" "the OTG port dumps too"

# --- set and restore under the bound driver
check "set TXFIFOTHRES=2 under the driver" ct --controller "$HOST_LABEL" set TXFIFOTHRES=2
check "devmem TXFILLTUNING" rd32 "$FILL"
expect_grep '^0x00020000$' "$E2E_OUT" "TXFILLTUNING.TXFIFOTHRES is 2"
check "citune restore" ct restore
check "devmem TXFILLTUNING" rd32 "$FILL"
expect_grep '^0x00000000$' "$E2E_OUT" "TXFILLTUNING is 0 again"
check "no journal left" test ! -e "$E2E_JOURNAL"

# --- the modparam sweep (module reloads)
R=/tmp/sweep.jsonl
# shellcheck disable=SC2086 # NOTRACE is empty or one flag
check "sweep log2_irq_thresh=0,3" ct --controller "$HOST_LABEL" sweep $NOTRACE \
	--axis modparam:ehci_hcd.log2_irq_thresh=0,3 --repeat 2 --warmup 0 --settle 0 --seed 1 \
	--out "$R" -- read --size 4M /dev/sda
cp "$E2E_OUT" /tmp/sweep.out
expect_grep 'reloading usb_storage, ci_hdrc_imx, ci_hdrc, ehci_hcd with ehci_hcd log2_irq_thresh=3' /tmp/sweep.out "the sweep reloads the stack with log2_irq_thresh=3"
expect_grep '^original settings restored$' /tmp/sweep.out "the sweep restores the original settings"
expect_no_grep 'not-held|CORRUPT' /tmp/sweep.out "no point lost its settings or read corrupt data"
expect_grep '"type":"end".*"status":"complete","restored":true' "$R" "results: complete and restored"
check "log2_irq_thresh after the sweep" cat "$PARAM"
expect_grep '^0$' "$E2E_OUT" "log2_irq_thresh is 0 again"
check "disk is back" test -b /dev/sda

# --- kill -9 in the middle of a sweep, then citune restore
K=/tmp/killed.jsonl
# shellcheck disable=SC2086
citune --journal "$E2E_JOURNAL" --controller "$HOST_LABEL" sweep $NOTRACE --axis TXFIFOTHRES=2 \
	--repeat 3 --warmup 0 --settle 0 --seed 1 --out "$K" -- read --size 4M /dev/sda >/tmp/killed.out 2>&1 &
PID=$!
i=0
until grep -q '"type":"run".*"visit":2' "$K" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -ge 900 ] && break
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.1
done
check "the sweep is probing its point" grep -q '"type":"run".*"visit":2' "$K"
check "kill -9 the sweep" kill -9 "$PID"
wait "$PID"
check "devmem TXFILLTUNING after the kill" rd32 "$FILL"
expect_grep '^0x00020000$' "$E2E_OUT" "the killed sweep left TXFIFOTHRES=2"
check "journal kept" test -s "$E2E_JOURNAL"
check "citune restore" ct restore
expect_grep "restoring /dev/mem $USBH1_BASE \\($QEMU_PROFILE $HOST_LABEL\\)" "$E2E_OUT" "restore names the target it writes"
check "devmem TXFILLTUNING after restore" rd32 "$FILL"
expect_grep '^0x00000000$' "$E2E_OUT" "TXFILLTUNING is 0 again"
check "no journal left" test ! -e "$E2E_JOURNAL"

# --- footprint
SIZE=$(wc -c </usr/bin/citune)
echo "FOOTPRINT: $E2E_BOARD binary $SIZE bytes"
check "citune dump (timed)" busybox time -v citune --journal "$E2E_JOURNAL" --controller "$HOST_LABEL" dump
_raw=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$E2E_OUT")
_kb=$((${_raw:-3999996} / 4))
echo "FOOTPRINT: $E2E_BOARD dump peak RSS $_kb kB"
check "dump peak RSS under 32 MiB" test "$_kb" -lt 32768
check "devmem BURSTSIZE at the end" rd32 "$BURST"
expect_grep "^$BOUND_BURST\$" "$E2E_OUT" "BURSTSIZE is as the driver left it"
