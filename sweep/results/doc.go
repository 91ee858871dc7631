// Package results is the sweep's results file: a JSON Lines format
// (README.md in this directory documents every record) with its own
// record types, identified by Format and Version, not probe's structs
// (MeasurementOf converts a probe.Run). Writer appends records flushed and
// fsync'd, CreateFile and OpenAppend open a file for a new or a resumed
// sweep, Load/Read read one back; Store turns closed visits into a
// ranking, so the running sweep and a file read back rank alike.
package results
