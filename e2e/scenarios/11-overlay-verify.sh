# shellcheck shell=sh
#@ desc: a short sweep's winner (BURSTSIZE 32/32) as dts --results --overlay, applied to imx6q-sabrelite.dtb with fdtoverlay on the host; after the boot verify --dts finds it in force, SBUSCFG not applicable
#@ needs: citune
#@ host: 11-overlay-verify.host

check "USB stack loads, disk on host1" load_usb
TX=/proc/device-tree/soc/bus@2100000/usb@2184200/tx-burst-size-dword
check "the running tree has the overlay's tx-burst-size-dword" od -An -tx1 "$TX"
expect_grep '00 00 00 20' "$E2E_OUT" "tx-burst-size-dword = <0x20> in the booted tree"
check "devmem BURSTSIZE on usbh1" rd32 "$(hexadd "$USBH1_BASE" 0x160)"
expect_grep '^0x0*2020$' "$E2E_OUT" "the driver wrote BURSTSIZE 0x2020 from the overlay"
check "verify --dts: every value in force" ct --controller usbh1 verify --dts /e2e/usbh1.dtso
expect_grep 'BURSTSIZE.TXPBURST +want 32, reads 32  in force' "$E2E_OUT" "TXPBURST 32 in force"
expect_grep 'BURSTSIZE.RXPBURST +want 32, reads 32  in force' "$E2E_OUT" "RXPBURST 32 in force"
expect_grep 'SBUSCFG.AHBBRST +want 0, reads -  not applicable' "$E2E_OUT" "SBUSCFG is not applicable on QEMU"
expect_grep 'ehci_hcd.log2_irq_thresh +want 0, reads 0  in force' "$E2E_OUT" "the bootargs file's parameter is in force"
check "verify --dts --json" ct --json --controller usbh1 verify --dts /e2e/usbh1.dtso
expect_grep '"in_force": true' "$E2E_OUT" "JSON: in force"
