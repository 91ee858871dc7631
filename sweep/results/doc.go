// Package results is the sweep's results file: a JSON Lines format
// (README.md in this directory documents every record) with its own
// record types (Header, ResumeRecord, RunRecord with a Measurement,
// PointRecord, EventRecord, EndRecord), identified by Format and
// Version; Writer appends records flushed and fsync'd, CreateFile and
// OpenAppend open a file for a new or a resumed sweep, and Load/Read read
// one back for resuming, `citune report` and `citune dts`. Store turns
// closed visits into a ranking, so the running sweep and a file read back
// rank alike. The records are types of their own, not probe's structs
// (MeasurementOf converts a probe.Run). Imports probe, soc, sweep/plan (the
// header records the plan) and sweep/rank (statuses, comparisons and the
// ranking in the records).
package results
