// Package dtsout turns settings into what makes them permanent: a
// device-tree fragment or overlay for the controller (BuildDTS) and the
// kernel parameters for module parameters, from a sweep's winner
// (WinnerSettings) or the live registers (LiveSettings); Permanence is the
// verdict's test of what can be made so.
package dtsout
