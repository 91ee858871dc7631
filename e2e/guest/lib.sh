# shellcheck shell=sh
# e2e/guest/lib.sh — assertion helpers for scenario scripts, run by busybox sh
# inside the guest. Copied to /e2e/lib.sh in the initramfs and sourced before
# the scenario; the scenario ends with e2e_finish (the runner calls it too).
#
#   check "description" cmd args...      ok when cmd exits 0
#   expect_fail CODE "description" cmd... ok when cmd exits with CODE
#                                         (CODE "any" accepts any non-zero)
#   expect_grep PATTERN FILE ["description"]   ok when FILE matches the ERE
#                                         (case-insensitive)
#   expect_no_grep PATTERN FILE ["description"]
#   expect_eq "description" GOT WANT
#   run cmd args...                       run, show output, keep it in $E2E_OUT
#   skip_all "reason"                     the scenario cannot run: status 77
#
# Every helper prints the command's output indented by four spaces, then one
# "ok N - description" or "not ok N - description" line (TAP style). The
# output of the last command run is kept in the file $E2E_OUT so it can be
# inspected with expect_grep. E2E_FAILS counts the failures.

E2E_N=0
E2E_FAILS=0
E2E_OUT=/tmp/e2e.out
E2E_LAST=0
E2E_JOURNAL=${E2E_JOURNAL:-/tmp/journal.json}
: >"$E2E_OUT"

e2e_say() { echo "# $*"; }

_e2e_result() { # status description
	E2E_N=$((E2E_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $E2E_N - $2"
	else
		E2E_FAILS=$((E2E_FAILS + 1))
		echo "not ok $E2E_N - $2"
	fi
}

_e2e_show() { # show the captured output, indented (always newline-terminated)
	[ -s "$E2E_OUT" ] && awk '{ print "    " $0 }' "$E2E_OUT"
	return 0
}

_e2e_quote() { # print the arguments as a shell would need them typed
	_q=
	for _a in "$@"; do
		case $_a in
		*[!A-Za-z0-9_./=:,+@%-]* | '') _a="'$(printf '%s' "$_a" | sed "s/'/'\\\\''/g")'" ;;
		esac
		_q="$_q${_q:+ }$_a"
	done
	printf '%s\n' "$_q"
}

# run cmd...: run a command, capture and show its output, return its status.
run() {
	echo "\$ $(_e2e_quote "$@")"
	"$@" >"$E2E_OUT" 2>&1
	E2E_LAST=$?
	_e2e_show
	[ "$E2E_LAST" = 0 ] || echo "    (exit $E2E_LAST)"
	return "$E2E_LAST"
}

check() {
	_d=$1
	shift
	run "$@"
	_e2e_result "$E2E_LAST" "$_d"
	return "$E2E_LAST"
}

expect_fail() {
	_c=$1
	_d=$2
	shift 2
	run "$@"
	if [ "$_c" = any ]; then
		[ "$E2E_LAST" != 0 ]
	else
		[ "$E2E_LAST" = "$_c" ]
	fi
	_s=$?
	[ "$_s" = 0 ] || echo "    (expected exit $_c, got $E2E_LAST)"
	_e2e_result "$_s" "$_d (exit $E2E_LAST, want $_c)"
	return "$_s"
}

expect_grep() {
	_p=$1
	_f=$2
	_d=${3:-"$_f matches /$_p/"}
	if grep -Eiq -- "$_p" "$_f" 2>/dev/null; then
		_e2e_result 0 "$_d"
	else
		echo "    /$_p/ not found in $_f:"
		[ "$_f" = "$E2E_OUT" ] || sed 's/^/    | /' "$_f" 2>/dev/null | head -n 40
		_e2e_result 1 "$_d"
		return 1
	fi
}

expect_no_grep() {
	_p=$1
	_f=$2
	_d=${3:-"$_f does not match /$_p/"}
	if grep -Eiq -- "$_p" "$_f" 2>/dev/null; then
		echo "    /$_p/ unexpectedly found in $_f:"
		grep -Ei -- "$_p" "$_f" | sed 's/^/    | /' | head -n 10
		_e2e_result 1 "$_d"
		return 1
	fi
	_e2e_result 0 "$_d"
}

expect_eq() {
	if [ "$2" = "$3" ]; then
		_e2e_result 0 "$1 ($2)"
	else
		echo "    got:  $2"
		echo "    want: $3"
		_e2e_result 1 "$1"
		return 1
	fi
}

skip_all() {
	echo "# SKIP $*"
	exit 77
}

e2e_finish() {
	if [ "$E2E_FAILS" != 0 ]; then
		echo "# $E2E_FAILS of $E2E_N checks failed; kernel log tail:"
		dmesg 2>/dev/null | tail -n 25 | sed 's/^/#   /'
	else
		echo "# all $E2E_N checks passed"
	fi
	[ "$E2E_N" -gt 0 ] || {
		echo "# no check was run"
		exit 1
	}
	[ "$E2E_FAILS" -gt 100 ] && E2E_FAILS=100
	exit "$E2E_FAILS"
}

# --- board helpers -------------------------------------------------------------

# The emulated board (E2E_BOARD from /e2e/config): the physical addresses of
# the OTG port and of the host port the disk is on (USBH1_BASE), that host
# port's label, the profile detect must choose, the supplier module the USB
# PHYs wait for (qemu-imx6.md, "Other emulated boards"), and the BURSTSIZE
# the driver leaves on the host port (from the tree's burst properties);
# NOTRACE is the probe flag a board needs (empty: handler timing works).
# shellcheck disable=SC2034 # used by the scenarios
NOTRACE=
case ${E2E_BOARD:-sabrelite} in
imx6ul-evk)
	USBOTG_BASE=0x02184000 USBH1_BASE=0x02184200 HOST_LABEL=usbotg2 OTG_LABEL=usbotg1
	QEMU_PROFILE=qemu-imx6ul SILICON_PROFILE=imx6ul SUPPLIER=anatop-regulator PHY=phy-mxs-usb BOUND_BURST=0x00001010 ;;
imx7d-sabre)
	USBOTG_BASE=0x30b10000 USBH1_BASE=0x30b20000 HOST_LABEL=usbotg2 OTG_LABEL=usbotg1
	QEMU_PROFILE=qemu-imx7d SILICON_PROFILE=imx7d SUPPLIER=phy-generic PHY= BOUND_BURST=0x00000000
	# timing the interrupt handler through tracefs soft-locks this emulated
	# kernel (seen with citune probe; probe --no-trace and dd are fine)
	NOTRACE=--no-trace ;;
*)
	USBOTG_BASE=0x02184000 USBH1_BASE=0x02184200 HOST_LABEL=usbh1 OTG_LABEL=usbotg
	QEMU_PROFILE=qemu-sabrelite SILICON_PROFILE=imx6q SUPPLIER= PHY=phy-mxs-usb BOUND_BURST=0x00001010 ;;
esac

# rd32 ADDR: print a 32-bit register as 0xXXXXXXXX (busybox devmem).
rd32() { devmem "$1" 32; }

# hexadd BASE OFF: print BASE+OFF as 0x%08X.
hexadd() { printf '0x%08X' $(($1 + $2)); }

# ct ARGS...: citune with a journal in /tmp (global flags go before the command).
ct() { citune --journal "$E2E_JOURNAL" "$@"; }

# wait_for PATH [SECONDS]: wait until PATH exists (polls every 0.1 s).
wait_for() {
	_i=0
	_max=$((${2:-20} * 10))
	while [ ! -e "$1" ]; do
		_i=$((_i + 1))
		[ "$_i" -ge "$_max" ] && return 1
		sleep 0.1
	done
	return 0
}

# load_usb [ehci-hcd parameters...]: load the USB stack in the order the board
# needs (gpio-mxc first: without it both controllers stay in deferred probe
# waiting for their GPIO vbus regulators) and wait for the disk on host1.
load_usb() {
	if [ $# -gt 0 ]; then
		modprobe ehci-hcd "$@" || return 1
	fi
	for _m in $SUPPLIER gpio-mxc usbmisc_imx $PHY ci_hdrc_imx usb-storage sd_mod; do
		modprobe "$_m" || {
			echo "modprobe $_m failed"
			return 1
		}
	done
	wait_for /dev/sda 30 || {
		echo "no /dev/sda after 30 s"
		return 1
	}
	# /dev/sda appears before sd has finished with the disk (it still holds
	# it open for the partition scan, and rmmod usb_storage fails with EAGAIN
	# meanwhile): wait for sd's last word on it
	_i=0
	until dmesg | grep -q 'sda\] Attached SCSI'; do
		_i=$((_i + 1))
		[ "$_i" -ge 100 ] && {
			echo "sd did not finish attaching sda in 10 s"
			return 1
		}
		sleep 0.1
	done
	wait_for /sys/bus/platform/drivers/ci_hdrc/ci_hdrc.1 5
}

# unload_usb: remove the USB stack again (the controllers reset to their
# "before" values).
unload_usb() {
	for _m in sd_mod usb-storage ci_hdrc_imx ci_hdrc ehci-hcd phy-mxs-usb usbmisc_imx; do
		grep -q "^$(echo "$_m" | tr - _) " /proc/modules || continue
		rmmod "$_m" || return 1
	done
	return 0
}

# vmhwm_kb PID: peak RSS of a live process in kB.
vmhwm_kb() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
