# shellcheck shell=sh
#@ desc: BURSTSIZE and TXFILLTUNING stick; SBUSCFG and USBMODE.SDIS do not (exit 3, clear message)
#@ needs: citune

check "USB stack loads, disk on host1" load_usb
BURST=$(hexadd "$USBH1_BASE" 0x160)
FILL=$(hexadd "$USBH1_BASE" 0x164)
SBUS=$(hexadd "$USBH1_BASE" 0x090)
MODE=$(hexadd "$USBH1_BASE" 0x1A8)

# dry run: nothing is written
check "set --dry-run TXPBURST=8 RXPBURST=8" ct --controller usbh1 set --dry-run TXPBURST=8 RXPBURST=8
check "devmem BURSTSIZE" rd32 "$BURST"
expect_grep '^0x00001010$' "$E2E_OUT" "dry run left BURSTSIZE at 0x00001010"

# BURSTSIZE sticks
check "set TXPBURST=8 RXPBURST=8" ct --controller usbh1 set TXPBURST=8 RXPBURST=8
expect_grep 'BURSTSIZE .*wrote 0x00000808, reads 0x00000808 +ok' "$E2E_OUT" "set reports the write and its read-back"
check "devmem BURSTSIZE" rd32 "$BURST"
expect_grep '^0x00000808$' "$E2E_OUT" "BURSTSIZE reads back 0x00000808"
check "get TXPBURST RXPBURST" ct --controller usbh1 get TXPBURST RXPBURST
expect_grep '^BURSTSIZE.TXPBURST=8( |$)' "$E2E_OUT" "get shows BURSTSIZE.TXPBURST=8"
expect_grep '^BURSTSIZE.RXPBURST=8( |$)' "$E2E_OUT" "get shows BURSTSIZE.RXPBURST=8"
check "set BURSTSIZE.TXPBURST=16 (REG.FIELD form)" ct --controller usbh1 set BURSTSIZE.TXPBURST=16
check "devmem BURSTSIZE" rd32 "$BURST"
expect_grep '^0x00001008$' "$E2E_OUT" "BURSTSIZE reads back 0x00001008"

# TXFILLTUNING sticks
check "set TXFIFOTHRES=2" ct --controller usbh1 set TXFIFOTHRES=2
check "devmem TXFILLTUNING" rd32 "$FILL"
expect_grep '^0x00020000$' "$E2E_OUT" "TXFILLTUNING reads back 0x00020000"
check "set TXFIFOTHRES=0" ct --controller usbh1 set TXFIFOTHRES=0
check "devmem TXFILLTUNING" rd32 "$FILL"
expect_grep '^0x00000000$' "$E2E_OUT" "TXFILLTUNING reads back 0"

# SBUSCFG does not stick on QEMU (read-as-zero area)
expect_fail 3 "set AHBBRST=7 does not stick" ct --controller usbh1 set AHBBRST=7
expect_grep 'AHBBRST|SBUSCFG' "$E2E_OUT" "the message names SBUSCFG.AHBBRST"
expect_grep 'SBUSCFG.AHBBRST: wrote 7, reads 0' "$E2E_OUT" "the message gives the value written and read back"
expect_grep 'did not stick' "$E2E_OUT" "the message says the value did not stick"
check "devmem SBUSCFG" rd32 "$SBUS"
expect_grep '^0x00000000$' "$E2E_OUT" "SBUSCFG still reads 0"

# USBMODE.SDIS does not stick either
expect_fail 3 "set SDIS=1 does not stick" ct --controller usbh1 set SDIS=1
expect_grep 'SDIS' "$E2E_OUT" "the message names USBMODE.SDIS"
expect_grep 'USBMODE.SDIS: wrote 1, reads 0' "$E2E_OUT" "the message gives the value written and read back"
expect_grep 'did not stick' "$E2E_OUT" "the message says the value did not stick"
check "devmem USBMODE" rd32 "$MODE"
expect_grep '^0x00000000$' "$E2E_OUT" "USBMODE still reads 0"

# the same on the OTG controller, and the disk still reads fine afterwards
check "set TXPBURST=8 on usbotg" ct --controller usbotg set TXPBURST=8
check "devmem usbotg BURSTSIZE" rd32 "$(hexadd "$USBOTG_BASE" 0x160)"
expect_grep '^0x00000810$' "$E2E_OUT" "usbotg BURSTSIZE reads back 0x00000810"
check "disk still reads" dd if=/dev/sda of=/dev/null bs=1M count=4 iflag=direct

# restore from the journal puts back what citune changed, on both controllers
check "restore from the journal" ct restore
check "devmem usbh1 BURSTSIZE" rd32 "$BURST"
expect_grep '^0x00001010$' "$E2E_OUT" "usbh1 BURSTSIZE restored to 0x00001010"
check "devmem usbh1 TXFILLTUNING" rd32 "$FILL"
expect_grep '^0x00000000$' "$E2E_OUT" "usbh1 TXFILLTUNING restored to 0"
check "devmem usbotg BURSTSIZE" rd32 "$(hexadd "$USBOTG_BASE" 0x160)"
expect_grep '^0x00001010$' "$E2E_OUT" "usbotg BURSTSIZE restored to 0x00001010"
check "journal removed after restore" test ! -e "$E2E_JOURNAL"
