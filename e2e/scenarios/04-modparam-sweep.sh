# shellcheck shell=sh
#@ desc: sweep ehci_hcd.log2_irq_thresh=0,3,6 (module reloads) with a read probe of the disk: settings hold, 6 (ITC 64) is slowest, originals restored, dts names the parameter
#@ needs: citune

# The only ITC that holds on a host port is ehci-hcd's own, so the sweep
# reloads the driver stack (the profile's [reload]) for every value.
check "USB stack loads, disk on host1" load_usb
CMD=$(hexadd "$USBH1_BASE" 0x140)
PARAM=/sys/module/ehci_hcd/parameters/log2_irq_thresh
R=/tmp/sweep.jsonl

check "original log2_irq_thresh" cat "$PARAM"
expect_grep '^0$' "$E2E_OUT" "ehci-hcd starts with log2_irq_thresh=0"

check "sweep log2_irq_thresh=0,3,6" ct --controller usbh1 sweep \
	--axis modparam:ehci_hcd.log2_irq_thresh=0,3,6 --repeat 2 --warmup 0 --settle 0 --seed 1 \
	--out "$R" -- read --size 8M /dev/sda
cp "$E2E_OUT" /tmp/sweep.out
# How long a reload of the stack takes here (simmodel/README.md cites
# it): each reload event and the two runs of the point after it. The
# first run's record comes a reload and a run after the event; the second
# run's a run after the first, so the reload is about (run 1 - event) -
# (run 2 - run 1).
run sh -c "grep -A2 '\"event\":\"reload\"' $R | sed -n 's/^{\"type\":\"\([a-z]*\)\".*\"time\":\"[^T]*T\([^\"]*\)\".*/\1 \2/p'"
expect_grep 'grid sweep of 3 points' /tmp/sweep.out "the sweep plans 3 points"
expect_grep 'the plan reloads .* 3 time\(s\), .*; the first reload is timed' /tmp/sweep.out "the sweep says it times its first reload"
# 3 reloads, and 2 more where the verdict takes its second look (the
# fastest point and the baseline again: with 2 runs a point nothing can
# be compared).
expect_grep '^time: .*, of which [35] module reload\(s\) [0-9.]+s$' /tmp/sweep.out "the sweep says how long its reloads took"
expect_grep 'reloading usb_storage, ci_hdrc_imx, ci_hdrc, ehci_hcd with ehci_hcd log2_irq_thresh=6' /tmp/sweep.out \
	"the driver stack is reloaded with log2_irq_thresh=6"
expect_grep '^original settings restored$' /tmp/sweep.out "the sweep restores the original settings"
expect_grep '^ +3 +ehci_hcd.log2_irq_thresh=6 ' /tmp/sweep.out "log2_irq_thresh=6 (ITC 64) ranks last"
# 0 is the original value: the verdict keeps it, or applies 3.
expect_grep '^verdict: (keep the original settings|apply ehci_hcd.log2_irq_thresh=3:)' /tmp/sweep.out "the verdict keeps log2_irq_thresh 0 or applies 3"
expect_no_grep 'not-held|CORRUPT' /tmp/sweep.out "no point lost its settings or read corrupt data"
# The parameter is module-wide: usbotg and usbh1 are bound (usbh2/usbh3 are
# disabled in the sabrelite tree), and the header records both with their
# settings, read through their own windows.
expect_grep 'modparam:ehci_hcd.log2_irq_thresh is module-wide: every point changes usbotg \(.*\), usbh1 \(host, sysfs\)' /tmp/sweep.out \
	"the sweep says the parameter changes usbotg and usbh1"
expect_grep '"modparam_controllers":\{"ehci_hcd.log2_irq_thresh":\[\{"label":"usbotg".*"settings":\{"USBCMD.ITC":"1"\}.*\{"label":"usbh1".*"settings":\{"USBCMD.ITC":"1"\}' \
	"$R" "results header: both affected controllers with their ITC"
expect_no_grep '"label":"usbh[23]"' "$R" "results header: the disabled HSIC ports are not affected"

# The results file: every value applied and read back after its reload.
for n in 3 6; do
	expect_grep "\"type\":\"point\".*\"applied\":\\[\\{\"name\":\"ehci_hcd.log2_irq_thresh\",\"want\":\"$n\",\"readback\":\"$n\"\\}\\],\"reloaded\":true" \
		"$R" "results: log2_irq_thresh=$n applied by a reload and read back"
done
expect_grep '"type":"end".*"status":"complete","restored":true' "$R" "results: the sweep completed and restored"
expect_no_grep '"held":false' "$R" "results: every run held its settings"

# The board is as before.
check "log2_irq_thresh after the sweep" cat "$PARAM"
expect_grep '^0$' "$E2E_OUT" "ehci-hcd is back to log2_irq_thresh=0"
check "disk is back" test -b /dev/sda
check "devmem USBCMD" rd32 "$CMD"
expect_grep '^0x0001' "$E2E_OUT" "USBCMD.ITC is back to 1"
check "no journal left" test ! -e "$E2E_JOURNAL"

check "citune dts --results" ct dts --results "$R"
expect_grep 'ehci_hcd.log2_irq_thresh=[03]' "$E2E_OUT" "dts gives the winner as a kernel parameter"
expect_grep 'options ehci_hcd log2_irq_thresh=[03]' "$E2E_OUT" "dts also gives the modprobe.d form"
expect_grep 'ehci_hcd.log2_irq_thresh is module-wide: .*usbotg \(.*usbh1 \(host, sysfs\)' "$E2E_OUT" "dts names both affected controllers"
