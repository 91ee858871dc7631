# shellcheck shell=sh
#@ desc: TODO crash: kill -9 citune during a sweep, then citune restore puts the registers back
#@ needs: citune
#@ skip: TODO: citune has no sweep command yet (issue 6, scenario 6)
# Written when cmd/citune grows a `sweep` command.
skip_all "citune sweep does not exist yet"
