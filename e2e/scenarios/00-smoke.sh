# shellcheck shell=sh
#@ desc: boot path: kernel, modules, USB disk on host1, registers via /dev/mem
# Proves the harness itself; needs no citune.

check "running kernel is $E2E_KVER" test "$(uname -r)" = "$E2E_KVER"
check "imx2_wdt is loaded (reboot works)" grep -q '^imx2_wdt ' /proc/modules

# Before any USB driver: the capability registers read through /dev/mem.
check "devmem reads OTG CAPLENGTH/HCIVERSION" rd32 "$(hexadd "$USBOTG_BASE" 0x100)"
expect_grep '^0x01000040$' "$E2E_OUT" "OTG CAPLENGTH/HCIVERSION is 0x01000040"
check "devmem reads host1 CAPLENGTH/HCIVERSION" rd32 "$(hexadd "$USBH1_BASE" 0x100)"
expect_grep '^0x01000040$' "$E2E_OUT" "host1 CAPLENGTH/HCIVERSION is 0x01000040"

check "USB modules load and /dev/sda appears" load_usb
check "ci_hdrc_imx is bound to both controllers" \
	test -e /sys/bus/platform/drivers/ci_hdrc/ci_hdrc.0 -a -e /sys/bus/platform/drivers/ci_hdrc/ci_hdrc.1
expect_grep '2184200\.usb' /proc/interrupts "host1 interrupt line 2184200.usb in /proc/interrupts"
expect_grep '2184000\.usb' /proc/interrupts "OTG interrupt line 2184000.usb in /proc/interrupts"

check "disk size is 64 MiB" test "$(cat /sys/block/sda/size)" = 131072
check "first sector of the disk" sh -c 'dd if=/dev/sda bs=512 count=1 2>/dev/null | hexdump -C | head -n 2'
expect_grep '^00000000  a5 a5 a5 a5' "$E2E_OUT" "disk reads the 0xA5 fill pattern"

# With the driver bound, /dev/mem still works thanks to iomem=relaxed.
check "devmem reads host1 USBCMD with the driver bound" rd32 "$(hexadd "$USBH1_BASE" 0x140)"
# RS is bit 0 (an odd last digit); the schedule enables (ASE, PSE) follow
# the bus's activity, and usb-storage may still be busy with the disk
# (0x00010021 was read once).
expect_grep '^0x[0-9A-F]{7}[13579BDF]$' "$E2E_OUT" "host1 USBCMD has RS set (driver running)"
check "devmem reads host1 BURSTSIZE (from the DT)" rd32 "$(hexadd "$USBH1_BASE" 0x160)"
expect_grep '^0x00001010$' "$E2E_OUT" "host1 BURSTSIZE is 0x00001010"
