# shellcheck shell=sh
#@ desc: citune binary size and peak RSS (VmHWM at exit) of citune runs in the guest
#@ needs: citune

SIZE=$(wc -c </usr/bin/citune)
echo "FOOTPRINT: binary $SIZE bytes"
check "binary is under 24 MiB" test "$SIZE" -lt 25165824

check "USB stack loads, disk on host1" load_usb

# busybox time -v reports the child's peak RSS from getrusage(ru_maxrss), but
# converts it as if it were counted in pages (ptok(pagesize, ru_maxrss)) while
# Linux already counts it in kB: the figure it prints is 4x too large on a
# 4 KiB-page kernel. Divide it back. (Check: on an x86 host, GNU time reports
# 9.1 MB for the same probe run that busybox here prints as 36.5 MB.)
peak() { # peak "label" citune-args...
	_l=$1
	shift
	check "citune $* (timed)" busybox time -v citune --journal "$E2E_JOURNAL" "$@"
	cp "$E2E_OUT" /tmp/peak.out
	_raw=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' /tmp/peak.out)
	_kb=$((${_raw:-3999996} / 4))
	_wall=$(sed -n 's/.*Elapsed (wall clock) time.*): *//p' /tmp/peak.out)
	echo "FOOTPRINT: $_l peak RSS ${_kb:-?} kB, wall $_wall"
	check "$_l peak RSS under 32 MiB" test "$_kb" -lt 32768
}
peak detect detect
peak dump --controller usbh1 dump
peak set --controller usbh1 set TXFIFOTHRES=2
peak verify --controller usbh1 verify
# a data-path run: O_DIRECT reads of the USB disk with interrupt accounting;
# --full-hash, so that every byte is hashed (and its buffers counted)
peak probe probe --repeat 1 read --size 16M --full-hash /dev/sda
expect_grep 'median [0-9.]+ MiB/s' /tmp/peak.out "probe reports a median rate"
# the disk is 0xA5 bytes: crc32 of 16 MiB of them
expect_grep 'data crc32:ebf7630d' /tmp/peak.out "probe read the disk's known pattern"
expect_no_grep 'tracefs is not mounted' /tmp/peak.out "probe found tracefs"
# the handler trace, read from the ring buffer's binary pages of this
# 32-bit kernel (4-byte commit field; probe/traceraw.go)
expect_grep 'handler us avg/max [0-9.]+/[0-9.]+' /tmp/peak.out "probe timed the controller's interrupt handler"
check "restore the set above" citune --journal "$E2E_JOURNAL" restore
# a whole sweep: two register points plus baselines, probing the disk
peak sweep --controller usbh1 sweep --axis TXFIFOTHRES=0,2 --repeat 2 --out /tmp/fp.jsonl -- read --size 8M /dev/sda
expect_grep '^verdict: ' /tmp/peak.out "sweep ranked its points and states its verdict"
