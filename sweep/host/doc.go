// Package host makes the changes a sweep makes on the running system
// besides registers: files in sysfs and procfs (under a root, so tests
// use a temporary tree) and kernel module parameters, applied by reloading
// the module stack (ModuleLoader, ExecLoader for modprobe/rmmod). It also
// restores module parameters for undo (Host.RestoreParams) and turns a
// Host into the journal's reload spec and back (ReloadSpec,
// HostFromReload), so `citune restore` can reload after a kill -9.
package host
