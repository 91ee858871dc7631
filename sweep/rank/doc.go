// Package rank is the statistics and the ranking of a sweep: medians, the
// bootstrap confidence interval of a point's difference from the baseline
// (Compare), the point status (Status: only ok points are ranked) and
// RankVisits, which orders points by median rate and breaks ties between points
// not significantly different by interrupts and CPU time per MiB, then by
// how few original settings they change. Pure: standard library only, so
// the results file's records (sweep) and the report can both use it.
// Status lives here, not in results, because results records rankings
// and importing it from rank would make a cycle.
package rank
