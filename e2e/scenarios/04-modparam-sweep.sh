# shellcheck shell=sh
#@ desc: TODO modparam sweep: citune sweep over ehci_hcd.log2_irq_thresh reloading the driver per point
#@ needs: citune
#@ skip: TODO: citune has no sweep command yet (issue 6, scenario 4)
# Written when cmd/citune grows a `sweep` command.
skip_all "citune sweep does not exist yet"
