// Package dtsout turns settings into what makes them permanent: a
// device-tree fragment for the controller (BuildDTS, DTS.String) and the
// kernel parameters for module parameters (DTS.KernelParams). Its
// settings come from a sweep's winner (WinnerSettings, read from a
// results file with its ranking) or from the live registers
// (LiveSettings). It imports sweep (for the results file and the axis
// kinds), sweep/rank, sweep/host, soc and regs; nothing in sweep imports
// it.
package dtsout
