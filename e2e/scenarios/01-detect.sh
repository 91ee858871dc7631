# shellcheck shell=sh
#@ desc: detect picks qemu-sabrelite (DT says fsl,imx6q); dump usbotg/usbh1 before and after the driver binds
#@ needs: citune

# The board's device tree is the real sabrelite one: only the identity checks
# tell the emulation from silicon.
check "device tree compatible" sh -c "tr '\\0' ' ' </proc/device-tree/compatible"
expect_grep 'fsl,imx6q' "$E2E_OUT" "the device tree says fsl,imx6q"
check "soc_id" cat /sys/devices/soc0/soc_id

check "citune detect (no driver bound)" ct detect
expect_grep '^profile: qemu-sabrelite' "$E2E_OUT" "detect chooses the qemu-sabrelite profile"
expect_grep 'imx6q: rejected' "$E2E_OUT" "detect says the real-silicon imx6q profile was rejected"
expect_grep 'qemu-sabrelite: identity checks pass' "$E2E_OUT" "detect says qemu-sabrelite passed its identity checks"
check "citune --json detect" ct --json detect
expect_grep '"profile": *"qemu-sabrelite"' "$E2E_OUT" "--json detect names qemu-sabrelite"

# Forcing the silicon profile: a write is refused by the identity check (ID
# reads 0 here) and nothing is written; a dry run only warns.
USBCMD=$(hexadd "$USBH1_BASE" 0x140)
expect_fail 4 "--profile imx6q set fails the identity check" ct --profile imx6q --controller usbh1 set ITC=16
expect_grep 'identity' "$E2E_OUT" "the error is about the identity check"
expect_grep 'ID \(offset 0x000\) reads 0x00000000' "$E2E_OUT" "the error shows the ID register reading 0"
expect_grep 'nothing was written' "$E2E_OUT" "the error says nothing was written"
check "devmem USBCMD" rd32 "$USBCMD"
expect_grep '^0x00080000$' "$E2E_OUT" "USBCMD unchanged (0x00080000)"
check "--profile imx6q set --dry-run only warns" ct --profile imx6q --controller usbh1 set --dry-run ITC=16
expect_grep 'warning: .*identity' "$E2E_OUT" "the dry run warns about the identity check"
expect_grep 'nothing written' "$E2E_OUT" "the dry run says nothing was written"

# Before any USB driver: reset values.
check "dump usbotg before the driver" ct --controller usbotg dump
expect_grep '^qemu-sabrelite usbotg' "$E2E_OUT" "dump header names the profile and usbotg"
expect_grep 'CAPLENGTH +0x01000040' "$E2E_OUT" "usbotg CAPLENGTH/HCIVERSION 0x01000040"
expect_grep 'USBCMD +0x00080000' "$E2E_OUT" "usbotg USBCMD 0x00080000 (reset: ITC=8, stopped)"
expect_grep 'BURSTSIZE +0x00000000' "$E2E_OUT" "usbotg BURSTSIZE 0 before the driver"
check "dump usbh1 before the driver" ct --controller usbh1 dump
expect_grep '^qemu-sabrelite usbh1' "$E2E_OUT" "dump header names the profile and usbh1"
expect_grep 'USBCMD +0x00080000' "$E2E_OUT" "usbh1 USBCMD 0x00080000 (stopped)"
expect_grep 'BURSTSIZE +0x00000000' "$E2E_OUT" "usbh1 BURSTSIZE 0 before the driver"
expect_grep 'PORTSC1 +0x0000100[1-3]' "$E2E_OUT" "usbh1 PORTSC1 sees the disk connected (CCS), port not enabled"
check "dump --raw usbh1 before the driver" ct --controller usbh1 dump --raw
expect_grep 'CAPLENGTH +0x01000040' "$E2E_OUT" "raw dump shows CAPLENGTH/HCIVERSION"

check "USB stack loads, disk on host1" load_usb

# Bound: the driver runs the controllers and wrote BURSTSIZE from the DT.
check "citune detect (driver bound)" ct detect
expect_grep '^profile: qemu-sabrelite' "$E2E_OUT" "detect still chooses qemu-sabrelite with the driver bound"
check "dump usbh1 bound" ct --controller usbh1 dump
expect_grep 'USBCMD +0x000100[0-9a-f]1' "$E2E_OUT" "usbh1 USBCMD running (RS=1, ITC=1)"
expect_grep 'BURSTSIZE +0x00001010' "$E2E_OUT" "usbh1 BURSTSIZE 0x00001010 from the device tree"
expect_grep 'CONFIGFLAG +0x00000001' "$E2E_OUT" "usbh1 CONFIGFLAG set by ehci-hcd"
expect_grep 'PORTSC1 +0x0000100[4-7]' "$E2E_OUT" "usbh1 PORTSC1 port enabled with the disk"
expect_grep 'USBCMD.ITC +1 ' "$E2E_OUT" "the knob summary shows ITC 1"
check "dump usbotg bound" ct --controller usbotg dump
expect_grep 'USBCMD +0x000100[0-9a-f]1' "$E2E_OUT" "usbotg USBCMD running"
expect_grep 'BURSTSIZE +0x00001010' "$E2E_OUT" "usbotg BURSTSIZE 0x00001010 from the device tree"
check "get ITC on usbh1" ct --controller usbh1 get ITC
expect_grep '^USBCMD.ITC=1( |$)' "$E2E_OUT" "get ITC prints USBCMD.ITC=1 (driver default)"
