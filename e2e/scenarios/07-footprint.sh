# shellcheck shell=sh
#@ desc: citune binary size and peak RSS (VmHWM at exit) of citune runs in the guest
#@ needs: citune

SIZE=$(wc -c </usr/bin/citune)
echo "FOOTPRINT: binary $SIZE bytes"
check "binary is under 24 MiB" test "$SIZE" -lt 25165824

check "USB stack loads, disk on host1" load_usb

# busybox time -v reports the kernel's peak RSS of the child (the hiwater mark
# that /proc/PID/status shows as VmHWM) once it has exited.
peak() { # peak "label" citune-args...
	_l=$1
	shift
	check "citune $* (timed)" busybox time -v citune --journal "$E2E_JOURNAL" "$@"
	_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$E2E_OUT")
	_wall=$(sed -n 's/.*Elapsed (wall clock) time.*): *//p' "$E2E_OUT")
	echo "FOOTPRINT: $_l peak RSS ${_kb:-?} kB, wall $_wall"
	check "$_l peak RSS under 64 MiB" test "${_kb:-999999}" -lt 65536
}
peak detect detect
peak dump --controller usbh1 dump
peak set --controller usbh1 set TXFIFOTHRES=2
peak verify --controller usbh1 verify
