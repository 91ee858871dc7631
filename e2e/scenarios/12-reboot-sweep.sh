# shellcheck shell=sh
#@ desc: a reboot sweep of cmdline:ehci_hcd.park=0,3 x cmdline:ehci_hcd.log2_irq_thresh=0,3; the host plays U-Boot (the environment on the disk), every point's /proc/cmdline verified, the results complete, the original bootargs back
#@ needs: citune
#@ host: 12-reboot-sweep.host
#@ reboots: 10

. /e2e/env
check "USB stack loads, disk on host1" load_usb
printf '/dev/sda 0x%X 0x4000\n' "$E2E_ENV_OFFSET" >/etc/fw_env.config
if dd if=/dev/sda bs=1M skip=48 count=15 2>/dev/null | tar -x -C / 2>/dev/null && [ -f /e2e-state/r.jsonl ]; then
	e2e_say "boot $(($(grep -c '"type":"resume"' /e2e-state/r.jsonl) + 2)): $(cat /proc/cmdline)"
	# busybox's rcS would start it in the background; here it runs in
	# the foreground, its output on the console.
	line=$(sed -n 's/^(\(.*\)) <\/dev\/null.*/\1/p' /etc/init.d/S99citune-resume)
	sh -c "$line" 2>&1 | tee /tmp/sweep.log
else
	mkdir -p /e2e-state
	citune --journal /var/lib/citune/journal.json sweep --axis cmdline:ehci_hcd.park=0,3 --axis cmdline:ehci_hcd.log2_irq_thresh=0,3 \
		--repeat 3 --warmup 0 --settle 0 --seed 1 --reboot 'sh /e2e/reboot.sh' --out /e2e-state/r.jsonl -- read --size 4M /dev/sda 2>&1 | tee /tmp/sweep.log
fi

# Only the last boot gets here: the sweep ended without a reboot.
R=/e2e-state/r.jsonl
expect_grep '"type":"end".*"status":"complete"' "$R" "the sweep is complete"
expect_grep 'removed the resume at boot' /tmp/sweep.log "the resume at boot removed itself"
check "no resume script left" test ! -e /etc/init.d/S99citune-resume
expect_no_grep '"status":"not-held"' "$R" "every point's arguments were on /proc/cmdline"
for p in 'ehci_hcd.park=0 ehci_hcd.log2_irq_thresh=3' 'ehci_hcd.park=3 ehci_hcd.log2_irq_thresh=0' 'ehci_hcd.park=3 ehci_hcd.log2_irq_thresh=3'; do
	expect_grep "\"type\":\"point\".*\"point\":\"$p\".*\"status\":\"ok\"" "$R" "point $p measured"
done
run sh -c "grep '\"type\":\"resume\"' $R | grep -o '\"boot\":{[^}]*}'"
expect_grep 'ehci_hcd.park=3 ehci_hcd.log2_irq_thresh=3|ehci_hcd.log2_irq_thresh=3 ehci_hcd.park=3' "$E2E_OUT" "a boot with both parameters recorded"
run sh -c "dd if=/dev/sda bs=4096 skip=$((E2E_ENV_OFFSET / 4096)) count=4 2>/dev/null | tail -c +5 | tr '\\000' '\\n' | sed -n 's/^bootargs=//p'"
expect_eq "the original bootargs are back in the environment" "$(cat "$E2E_OUT")" "$E2E_CMDLINE"
check "no journal left" test ! -e /var/lib/citune/journal.json
