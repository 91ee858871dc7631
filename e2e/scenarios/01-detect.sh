# shellcheck shell=sh
#@ desc: detect picks qemu-sabrelite (DT says fsl,imx6q); dump usbotg/usbh1 before and after the driver binds
#@ needs: citune

# The board's device tree is the real sabrelite one: only the identity check
# can tell the emulation from silicon.
check "device tree compatible" sh -c "tr '\\0' ' ' </proc/device-tree/compatible"
expect_grep 'fsl,imx6q' "$E2E_OUT" "the device tree says fsl,imx6q"
check "soc_id" cat /sys/devices/soc0/soc_id

check "citune detect (no driver bound)" ct detect
expect_grep 'qemu-sabrelite' "$E2E_OUT" "detect chooses the qemu-sabrelite profile"
expect_grep 'imx6q([^-a-z0-9]|$)' "$E2E_OUT" "detect names the real-silicon imx6q profile it rejected"
check "citune --json detect" ct --json detect
expect_grep '"qemu-sabrelite"' "$E2E_OUT" "--json detect names qemu-sabrelite"

# Forcing the silicon profile must fail the identity check (ID reads 0 here).
expect_fail 4 "--profile imx6q fails the identity check" ct --profile imx6q --controller usbh1 set --dry-run ITC=8
expect_grep 'ID' "$E2E_OUT" "the identity error names the ID register"

# Before any USB driver: reset-like values.
check "dump usbotg before the driver" ct --controller usbotg dump
expect_grep 'CAPLENGTH.*0x01000040' "$E2E_OUT" "usbotg CAPLENGTH/HCIVERSION 0x01000040"
expect_grep 'USBCMD.*0x00080000' "$E2E_OUT" "usbotg USBCMD is 0x00080000 (reset: ITC=8, stopped)"
check "dump usbh1 before the driver" ct --controller usbh1 dump
expect_grep 'USBCMD.*0x00080000' "$E2E_OUT" "usbh1 USBCMD is 0x00080000 (stopped)"
expect_grep 'BURSTSIZE.*0x00000000' "$E2E_OUT" "usbh1 BURSTSIZE is 0 before the driver"
check "dump --raw usbh1 before the driver" ct --controller usbh1 dump --raw
expect_grep '0x01000040' "$E2E_OUT" "raw dump shows CAPLENGTH/HCIVERSION"

check "USB stack loads, disk on host1" load_usb

# Bound: the driver runs the controllers and wrote BURSTSIZE from the DT.
check "citune detect (driver bound)" ct detect
expect_grep 'qemu-sabrelite' "$E2E_OUT" "detect still chooses qemu-sabrelite with the driver bound"
check "dump usbh1 bound" ct --controller usbh1 dump
expect_grep 'USBCMD.*0x000[0-9a-f]00[0-9a-f]1' "$E2E_OUT" "usbh1 USBCMD running (RS=1, ITC=1)"
expect_grep 'BURSTSIZE.*0x00001010' "$E2E_OUT" "usbh1 BURSTSIZE 0x00001010 from the device tree"
expect_grep 'PORTSC1.*0x0000100[0-9a-f]' "$E2E_OUT" "usbh1 PORTSC1 shows the connected disk"
check "dump usbotg bound" ct --controller usbotg dump
expect_grep 'BURSTSIZE.*0x00001010' "$E2E_OUT" "usbotg BURSTSIZE 0x00001010 from the device tree"
check "get ITC on usbh1" ct --controller usbh1 get ITC
expect_grep '(^|[^0-9])1([^0-9]|$)' "$E2E_OUT" "ITC is the driver default 1"
