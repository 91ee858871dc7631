package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/citune/citune/sweep/rank"
)

// WriteMarkdown writes the report as Markdown whose tables are aligned
// in plain text too, for a commit message or a mailing-list post.
func WriteMarkdown(w io.Writer, ss []*Sweep, o Options) error {
	if len(ss) == 0 {
		return errNoResults
	}
	uniqueLabels(ss)
	if isFleet(ss, o) {
		writeFleetMarkdown(w, ss)
		return nil
	}
	if len(ss) > 1 {
		return writeMarkdownCompare(w, ss, o)
	}
	s := ss[0]
	pts, err := rows(s, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "### USB throughput: %s, %s\n\n", s.Board(), s.KernelText())
	fmt.Fprintf(w, "- probe: %s\n", s.Probe)
	fmt.Fprintf(w, "- plan: %s\n", s.PlanString())
	fmt.Fprintf(w, "- original settings: `%s`\n", s.Originals())
	fmt.Fprintf(w, "- %s\n", stateLine(s))
	for _, l := range mdNotices(s) {
		fmt.Fprintln(w, l)
	}
	if _, cor, _ := s.Counts(); cor > 0 {
		fmt.Fprintf(w, "\n**CORRUPT DATA at %d point%s** (below): a probe run's data failed its integrity check.\n", cor, plural(cor))
	}
	fmt.Fprintln(w)
	if s.Baseline != nil || len(pts) > 0 {
		pointTable(s, pts).markdown(w)
		if fn := footnotes(s, pts); len(fn) > 0 {
			fmt.Fprintln(w)
			for _, f := range fn {
				fmt.Fprintf(w, "%s  \n", f)
			}
		}
	} else {
		fmt.Fprintln(w, "Nothing was measured to the end.")
	}
	if len(s.Excluded) > 0 {
		fmt.Fprintf(w, "\nNot ranked (never compared, their numbers are not trusted):\n\n")
		for _, p := range s.Excluded {
			fmt.Fprintln(w, mdExcluded(p))
		}
	}
	if len(s.Eliminated) > 0 {
		title, why := s.droppedBy()
		fmt.Fprintf(w, "\n%s (%s):\n\n", strings.ToUpper(title[:1])+title[1:], strings.ToLower(why[:1])+strings.TrimSuffix(why[1:], "."))
		eliminatedTable(s).markdown(w)
	}
	if effs := s.Effects(); len(effs) > 0 && len(s.Ranked) > 0 {
		fmt.Fprintf(w, "\nEffect of each axis on its own (%s; spread in points of the baseline):\n\n", effs[0].How)
		effectTable(s, effs).markdown(w)
	}
	if s.Winner() != nil {
		fmt.Fprintf(w, "\n**Verdict.**\n\n")
		for _, l := range s.VerdictLines() {
			fmt.Fprintf(w, "- %s\n", l)
		}
	}
	if s.DTS != "" {
		what := "The recommendation"
		if s.Verdict.Kind != rank.VerdictApply {
			what = "Nothing to make permanent; the original values"
		}
		fmt.Fprintf(w, "\n%s as a device-tree fragment and kernel parameters:\n\n```dts\n%s```\n", what, s.DTS)
	}
	return nil
}

func writeMarkdownCompare(w io.Writer, ss []*Sweep, o Options) error {
	fmt.Fprintf(w, "### USB throughput: %d results side by side\n\n", len(ss))
	st, err := summaryTable(ss, o)
	if err != nil {
		return err
	}
	st.head[0] = "   "
	st.markdown(w)
	fmt.Fprintf(w, "\nEvery point (median, difference to the file's own baseline, rank):\n\n")
	matrixTable(ss).markdown(w)
	writeFileNotesMarkdown(w, ss)
	return nil
}

// writeFileNotesMarkdown lists each file's notices and points not ranked.
func writeFileNotesMarkdown(w io.Writer, ss []*Sweep) {
	for _, s := range ss {
		lines := append(mdNotices(s), mapf(s.Excluded, mdExcluded)...)
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s:\n\n%s\n", s.Label, strings.Join(lines, "\n"))
		}
	}
}

// mdNotices are the file's notices as list items, the warnings bold.
func mdNotices(s *Sweep) (out []string) {
	for _, n := range s.notices() {
		l := n[0] + ":"
		if n[0] == "warning" {
			l = "**warning:**"
		}
		out = append(out, "- "+l+" "+n[1])
	}
	return out
}

// mdExcluded is the list item of an excluded point, CORRUPT bold.
func mdExcluded(p *Point) string {
	st := excludedStatus(p)
	if st == "!!! CORRUPT" {
		st = "**CORRUPT**"
	}
	return fmt.Sprintf("- %s `%s`: %s", st, p.Label, p.why())
}
