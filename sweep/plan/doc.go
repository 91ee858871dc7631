// Package plan is the grammar of a sweep plan: axes (register fields,
// sysfs/procfs files, module parameters) as `--axis` and plan files give
// them (ParseAxis, NewAxis, ParsePlanFile with BurntSushi/toml), the modes
// and the plan's shape check. It lives below sweep because the results
// file's header records the plan (sweep/results would otherwise import
// the runner). It imports regs and sweep/host (module names) only.
package plan
