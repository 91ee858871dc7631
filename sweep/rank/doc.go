// Package rank is the statistics, the ranking and the verdict of a sweep:
// a point's interval against the baseline (Compare), the point status
// (Status: only ok points are ranked) and RankVisits, whose ties are
// broken by interrupts and CPU time per MiB, then by how few original
// settings they change. Pure, so the sweep and the report both use it.
// Status lives here, not in results, because results records rankings
// and importing it from rank would make a cycle.
package rank
