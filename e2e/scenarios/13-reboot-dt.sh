# shellcheck shell=sh
#@ desc: a reboot sweep of dt:tx-burst-size-dword=0x10,0x20 through an overlay in the U-Boot environment's fdtoverlays; the host applies it at each boot, every point's BURSTSIZE verified, the results complete, the environment and /boot as they were
#@ needs: citune
#@ host: 13-reboot-dt.host
#@ reboots: 6

. /e2e/env
check "USB stack loads, disk on host1" load_usb
printf '/dev/sda 0x%X 0x4000\n' "$E2E_ENV_OFFSET" >/etc/fw_env.config
if dd if=/dev/sda bs=1M skip=48 count=15 2>/dev/null | tar -x -C / 2>/dev/null && [ -f /e2e-state/r.jsonl ]; then
	e2e_say "boot $(($(grep -c '"type":"resume"' /e2e-state/r.jsonl) + 2)): BURSTSIZE $(rd32 "$(hexadd "$USBH1_BASE" 0x160)")"
	line=$(sed -n 's/^(\(.*\)) <\/dev\/null.*/\1/p' /etc/init.d/S99citune-resume)
	sh -c "$line" 2>&1 | tee /tmp/sweep.log
else
	mkdir -p /e2e-state
	citune --journal /var/lib/citune/journal.json --controller usbh1 sweep --axis dt:tx-burst-size-dword=0x10,0x20 \
		--repeat 3 --warmup 0 --settle 0 --seed 1 --reboot 'sh /e2e/reboot.sh' --out /e2e-state/r.jsonl -- read --size 4M /dev/sda 2>&1 | tee /tmp/sweep.log
fi

# Only the last boot gets here: the sweep ended without a reboot.
R=/e2e-state/r.jsonl
expect_grep '"type":"end".*"status":"complete"' "$R" "the sweep is complete"
expect_grep 'fdtoverlays \\"/boot/citune-[0-9a-f]{8}\.dtbo\\"' "$R" "a point's overlay went to fdtoverlays"
expect_no_grep '"status":"not-held"' "$R" "every point's value was in force after its boot"
expect_grep '"point":"tx-burst-size-dword=32".*"status":"ok".*"want":"32","readback":"32"' "$R" "the driver wrote TXPBURST 32 from the overlay"
check "no resume script left" test ! -e /etc/init.d/S99citune-resume
run sh -c "ls /boot"
expect_no_grep 'dtbo' "$E2E_OUT" "the overlays are removed"
run sh -c "dd if=/dev/sda bs=4096 skip=$((E2E_ENV_OFFSET / 4096)) count=4 2>/dev/null | tail -c +5 | tr '\\000' '\\n' | grep -c '^fdtoverlays='"
expect_eq "fdtoverlays is unset again" "$(cat "$E2E_OUT")" "0"
check "no journal left" test ! -e /var/lib/citune/journal.json
check "report reads the file" citune report "$R"
expect_grep 'plan: grid over tx-burst-size-dword=16,32' "$E2E_OUT" "report names the dt axis"
