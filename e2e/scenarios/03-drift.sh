# shellcheck shell=sh
#@ desc: ITC written on host1 is reverted by ehci-hcd after a disk read; verify reports it (exit 3)
#@ needs: citune

check "USB stack loads, disk on host1" load_usb
CMD=$(hexadd "$USBH1_BASE" 0x140)

check "set ITC=64 on usbh1" ct --controller usbh1 set ITC=64
check "devmem USBCMD right after the write" rd32 "$CMD"
expect_grep '^0x0040' "$E2E_OUT" "USBCMD.ITC reads 64 at once"
check "verify right after set" ct --controller usbh1 verify
expect_grep 'USBCMD.ITC +set 64, reads 64 +holds' "$E2E_OUT" "verify says ITC=64 holds"
check "journal written" test -s "$E2E_JOURNAL"

check "read the whole disk" dd if=/dev/sda of=/dev/null bs=1M iflag=direct
check "devmem USBCMD after the read" rd32 "$CMD"
expect_grep '^0x0001' "$E2E_OUT" "ehci-hcd wrote its own ITC=1 back"

expect_fail 3 "verify reports the reverted ITC" ct --controller usbh1 verify
expect_grep 'USBCMD.ITC +set 64, reads 1 +REVERTED' "$E2E_OUT" "verify shows ITC set 64, reads 1, REVERTED"
expect_grep 'no longer hold' "$E2E_OUT" "verify says the value no longer holds"
expect_grep 'ehci-hcd' "$E2E_OUT" "verify says ehci-hcd reverted it"
expect_grep 'log2_irq_thresh' "$E2E_OUT" "verify points at ehci_hcd.log2_irq_thresh"
