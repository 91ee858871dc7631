# shellcheck shell=sh
#@ desc: without iomem=relaxed, /dev/mem is refused once a driver binds: the error names IO_STRICT_DEVMEM and iomem=relaxed
#@ needs: citune
#@ iomem: strict

check "booted without iomem=relaxed" sh -c '! grep -q iomem=relaxed /proc/cmdline'

# No driver claims the USB page yet: mapping works.
check "dump usbh1 before any USB driver" ct --controller usbh1 dump
expect_grep 'CAPLENGTH +0x01000040' "$E2E_OUT" "registers readable while no driver is bound"

check "USB stack loads, disk on host1" load_usb
expect_fail any "busybox devmem is refused too (sanity)" devmem "$(hexadd "$USBH1_BASE" 0x100)" 32

expect_fail 1 "dump with the driver bound fails" ct --controller usbh1 dump
expect_grep 'IO_STRICT_DEVMEM' "$E2E_OUT" "the error names IO_STRICT_DEVMEM"
expect_grep 'iomem=relaxed' "$E2E_OUT" "the error names iomem=relaxed"
expect_no_grep 'panic|goroutine|SIGSEGV|SIGBUS' "$E2E_OUT" "no Go panic"

expect_fail 1 "dump --profile qemu-sabrelite (no detection) fails" ct --profile qemu-sabrelite --controller usbh1 dump
expect_grep 'IO_STRICT_DEVMEM' "$E2E_OUT" "the error names IO_STRICT_DEVMEM"
expect_grep 'iomem=relaxed' "$E2E_OUT" "the error names iomem=relaxed"

expect_fail 1 "set with the driver bound fails, nothing written" ct --controller usbh1 set ITC=8
expect_grep 'iomem=relaxed' "$E2E_OUT" "set's error names iomem=relaxed"
expect_fail 1 "detect with the driver bound fails the same way" ct detect
expect_grep 'iomem=relaxed' "$E2E_OUT" "detect's error names iomem=relaxed"
