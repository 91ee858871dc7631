# shellcheck shell=bash
# e2e/host.sh — host-side helpers shared by e2e/run and e2e/board (sourced).
#
# Environment:
#   CITUNE_E2E_CACHE  kernel/busybox cache (default /var/cache/citune-e2e)
#   CITUNE_E2E_WORK   build products and logs (default /tmp/citune-e2e)
#   CITUNE_E2E_BIN    a prebuilt linux/arm citune to use instead of building one
#   CITUNE_E2E_BOARD  the emulated board (e2e_board): sabrelite (default),
#                     imx6ul-evk or imx7d-sabre

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$E2E_DIR/.." && pwd)
CACHE=${CITUNE_E2E_CACHE:-/var/cache/citune-e2e}
WORK=${CITUNE_E2E_WORK:-/tmp/citune-e2e}
export PATH="$PATH:/sbin:/usr/sbin"

# Kernel modules the guest may load (their dependencies are added): every
# board's, so one initramfs layout serves them all (anatop-regulator: the
# 6UL PHYs' 3p0 supply; phy-generic: the 7D's usb-nop-xceiv PHYs).
E2E_MODULES=(imx2_wdt gpio-mxc usbmisc_imx phy-mxs-usb ci_hdrc_imx ehci-hcd usb-storage sd_mod
	anatop-regulator phy-generic)
E2E_DISK_MB=64
# A reboot scenario's U-Boot environment (single copy, 16 KiB) near the
# disk's end, and the guest's saved state (a tar) before it.
E2E_ENV_OFFSET=$((63 * 1024 * 1024))

# e2e_board NAME: the emulated board's machine, device tree, console and
# serial wiring (qemu-imx6.md, "Other emulated boards"). Sets E2E_BOARD,
# E2E_MACHINE, E2E_DTB (a file name in the kernel package), E2E_SERIAL (QEMU
# serial options) and E2E_APPEND (the kernel command line of every boot;
# iomem=relaxed is added unless a scenario asks for the strict default).
# shellcheck disable=SC2034 # used by e2e/run and e2e/board
e2e_board() {
	E2E_BOARD=$1
	case $1 in
	sabrelite) # console on QEMU's second serial port
		E2E_MACHINE=sabrelite E2E_DTB=imx6q-sabrelite.dtb E2E_SERIAL=(-serial null -serial stdio)
		E2E_APPEND='console=ttymxc1,115200 rdinit=/init panic=1 quiet' ;;
	imx6ul-evk) # one CPU only; console on the first serial port
		E2E_MACHINE=mcimx6ul-evk E2E_DTB=imx6ul-14x14-evk.dtb E2E_SERIAL=(-serial stdio)
		E2E_APPEND='console=ttymxc0,115200 rdinit=/init panic=1 quiet' ;;
	imx7d-sabre)
		E2E_MACHINE=mcimx7d-sabre E2E_DTB=imx7d-sdb.dtb E2E_SERIAL=(-serial stdio)
		E2E_APPEND='console=ttymxc0,115200 rdinit=/init panic=1 quiet' ;;
	*)
		echo "e2e: unknown board '$1' (sabrelite, imx6ul-evk, imx7d-sabre)" >&2
		return 2 ;;
	esac
}
e2e_board "${CITUNE_E2E_BOARD:-sabrelite}" || exit 2

e2e_die() {
	echo "e2e: error: $*" >&2
	exit 1
}

# e2e_setup: run e2e/setup and load the cache description (KVER, VMLINUZ, ...).
e2e_setup() {
	"$E2E_DIR/setup" --quiet || e2e_die "e2e/setup failed"
	# shellcheck source=/dev/null
	. "$CACHE/env"
	mkdir -p "$WORK"
}

# e2e_build_citune OUT [REV]: cross-build citune for the guest from the work
# tree, or from git revision REV (exported to $WORK/src-REV first).
# Returns 0 when built, 1 when the build failed, 2 when cmd/citune does not exist.
e2e_build_citune() {
	local out=$1 rev=${2:-} src=$REPO
	rm -f "$out"
	if [ -n "${CITUNE_E2E_BIN:-}" ]; then
		echo "e2e: using the prebuilt $CITUNE_E2E_BIN (CITUNE_E2E_BIN)"
		cp "$CITUNE_E2E_BIN" "$out"
		return
	fi
	if [ -n "$rev" ]; then
		src=$WORK/src
		rm -rf "$src"
		mkdir -p "$src"
		git -C "$REPO" archive --format=tar "$rev" | tar -x -C "$src" || {
			echo "e2e: cannot export git revision $rev" >&2
			return 1
		}
	fi
	[ -d "$src/cmd/citune" ] || return 2
	command -v go >/dev/null || {
		echo "e2e: go not found in PATH" >&2
		return 1
	}
	(cd "$src" && CGO_ENABLED=0 GOOS=linux GOARCH=arm GOARM=7 go build -o "$out" ./cmd/citune)
}

# e2e_module_files: print the module files (relative to $KROOT) the guest needs.
e2e_module_files() {
	local m
	for m in "${E2E_MODULES[@]}"; do
		modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" || return 1
	done | awk '$1 == "insmod" { print $2 }' | sed "s|^$KROOT/||" | sort -u
}

# e2e_build_base DIR [CITUNE_BIN]: build DIR/base.cpio (busybox, modules, /init,
# lib.sh, citune when given) from a fresh DIR/rootfs.
e2e_build_base() {
	local dir=$1 bin=${2:-} root f mods files
	files=$(e2e_module_files) || e2e_die "cannot resolve the guest's kernel modules"
	root=$dir/rootfs
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,e2e,var/lib/citune}
	cp "$BUSYBOX" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$E2E_DIR/guest/init" "$root/init"
	cp "$E2E_DIR/guest/lib.sh" "$root/e2e/lib.sh"
	chmod 755 "$root/init" "$root/bin/busybox"
	if [ -n "$bin" ]; then
		cp "$bin" "$root/usr/bin/citune"
		chmod 755 "$root/usr/bin/citune"
	fi
	mods=$root/lib/modules/$KVER
	mkdir -p "$mods"
	while read -r f; do
		mkdir -p "$root/$(dirname "$f")"
		cp "$KROOT/$f" "$root/$f"
	done <<<"$files"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$KROOT/lib/modules/$KVER/$f" ] && cp "$KROOT/lib/modules/$KVER/$f" "$mods/"
	done
	depmod -b "$root" "$KVER" || e2e_die "depmod for the initramfs failed"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
	e2e_cpio "$root" "$dir/base.cpio"
}

# e2e_cpio DIR OUT: newc archive of DIR's content, owned by root.
e2e_cpio() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$2" ||
		e2e_die "cpio of $1 failed"
}

# e2e_make_initrd BASE OVERLAY_DIR OUT: the boot's initramfs is the base archive
# followed by a small archive of OVERLAY_DIR (the kernel unpacks both in turn).
e2e_make_initrd() {
	e2e_cpio "$2" "$3.overlay"
	cat "$1" "$3.overlay" >"$3"
	rm -f "$3.overlay"
}

# e2e_make_disk OUT: a raw disk of E2E_DISK_MB MiB filled with 0xA5 bytes.
e2e_make_disk() {
	local want=$((E2E_DISK_MB * 1024 * 1024))
	if [ ! -f "$1" ] || [ "$(stat -c %s "$1")" != "$want" ] ||
		[ "$(head -c 16 "$1" | od -An -tx1 | tr -d ' \n')" != "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5" ]; then
		head -c "$want" /dev/zero | tr '\0' '\245' >"$1.tmp" && mv -f "$1.tmp" "$1"
	fi
}

# e2e_dtb: the DTB that boots: a scenario's own (a host step's board.dtb,
# an overlay applied) as it is, else the board's DTB beside the kernel
# package's sabrelite one that setup names in DTB.
e2e_dtb() {
	if [ "$(basename "$DTB")" = board.dtb ]; then
		echo "$DTB"
	else
		echo "$(dirname "$DTB")/$E2E_DTB"
	fi
}

# e2e_qemu_args INITRD APPEND DISK: set QEMU_ARGS to the reference command
# without its serial options (test and board modes wire the console differently).
e2e_qemu_args() {
	# shellcheck disable=SC2034,SC2054 # QEMU_ARGS is the result; commas are qemu syntax
	QEMU_ARGS=(
		-M "$E2E_MACHINE" -smp 1 -m 1G
		-kernel "$VMLINUZ" -dtb "$(e2e_dtb)" -initrd "$1"
		-append "$2"
		-display none -monitor none -no-reboot
		-drive "if=none,id=stick,format=raw,file=$3"
		-device usb-storage,bus=usb-bus.1,drive=stick
	)
}

# e2e_now_ms: milliseconds since the epoch.
e2e_now_ms() { echo $(($(date +%s%N) / 1000000)); }
