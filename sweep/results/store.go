package results

import (
	"cmp"
	"math"

	"github.com/citune/citune/sweep/rank"
)

// Store accumulates what the closed visits measured, per point. The
// running sweep and a results file read back feed it the same records,
// so both rank alike.
type Store struct {
	order    []string
	pts      map[string]*rank.PointStats
	baseline []float64
	// baseGroups are the baseline's rates by visit, for the
	// between-visit noise.
	baseGroups [][]float64
	unit       string
	// original are the axes' values when the sweep started; among tied
	// points the one that changes fewer of them ranks first.
	original map[string]string
	// screen is the screening runs (RunRecord.Screen) per point: not
	// among its rates until a visit admits them (PointRecord.ScreenAdmitted).
	screen map[string]runs
	policy rank.Policy // what the verdict is decided under
}

// runs are the rates of some runs, with their interrupts and CPU per MiB
// where measured.
type runs struct{ rates, irqs, cpu []float64 }

func (rs *runs) add(m Measurement) {
	rs.rates = append(rs.rates, m.Rate)
	if x, ok := m.PerMiBIRQs(); ok {
		rs.irqs = append(rs.irqs, x)
	}
	if x, ok := m.PerMiBCPU(); ok {
		rs.cpu = append(rs.cpu, x)
	}
}

// SetPolicy sets the rule the ranking's verdict is decided under.
func (s *Store) SetPolicy(p rank.Policy) { s.policy = p }

// SecondLook records that the verdict's second look measures key again:
// from now on only it may be recommended.
func (s *Store) SecondLook(key string) { s.policy.SecondLook = key }

func NewStore() *Store { return &Store{pts: map[string]*rank.PointStats{}} }

// Counts says whether run r counts among its point's rates (a
// screening run among them once a visit admits it): measured, not a
// warm-up, its settings held, without error or corruption.
func Counts(r RunRecord) bool { return !r.Warmup && r.Error == "" && r.Held && !r.Run.Corrupt }

// AddVisit adds one closed visit. A point that once failed to hold, was
// corrupt or failed keeps that status: its other numbers are not trusted.
func (s *Store) AddVisit(p PointRecord, records []RunRecord) {
	var got runs
	for _, r := range records {
		if !Counts(r) {
			continue
		}
		if r.Screen {
			if p.Status == rank.StatusOK {
				if s.screen == nil {
					s.screen = map[string]runs{}
				}
				sc := s.screen[p.Point]
				sc.add(r.Run)
				s.screen[p.Point] = sc
			}
			continue
		}
		got.add(r.Run)
		s.unit = cmp.Or(s.unit, r.Run.Unit)
	}
	if p.Baseline {
		if p.Status == rank.StatusOK && len(got.rates) > 0 {
			s.baseline = append(s.baseline, got.rates...)
			s.baseGroups = append(s.baseGroups, got.rates)
		}
		return
	}
	ps := s.pts[p.Point]
	if ps == nil {
		ps = &rank.PointStats{Key: p.Point, Settings: p.Settings, Ignored: p.Ignored, Note: p.Note, Status: rank.StatusOK}
		s.pts[p.Point] = ps
		s.order = append(s.order, p.Point)
	}
	ps.Unit = s.unit
	if ps.Status != rank.StatusOK && ps.Status != rank.StatusEliminated {
		return
	}
	if p.Status != rank.StatusOK {
		ps.Status, ps.Reason, ps.Changed = p.Status, p.Reason, p.Changed
		return
	}
	if sc := s.screen[p.Point]; p.ScreenAdmitted && len(sc.rates) > 0 {
		ps.Visits++
		ps.Rates = append(ps.Rates, sc.rates...)
		ps.IRQsPerMiB = append(ps.IRQsPerMiB, sc.irqs...)
		ps.CPUPerMiB = append(ps.CPUPerMiB, sc.cpu...)
		delete(s.screen, p.Point)
	}
	if len(got.rates) > 0 {
		ps.Visits++
	}
	ps.Rates = append(ps.Rates, got.rates...)
	ps.IRQsPerMiB = append(ps.IRQsPerMiB, got.irqs...)
	ps.CPUPerMiB = append(ps.CPUPerMiB, got.cpu...)
}

// Eliminate marks an ok point dropped by the adaptive race, with why.
func (s *Store) Eliminate(key, why string) {
	if ps := s.pts[key]; ps != nil && ps.Status == rank.StatusOK {
		ps.Status, ps.Reason = rank.StatusEliminated, why
	}
}

// Runs is the number of ok runs of a point.
func (s *Store) Runs(key string) int { return len(s.Rates(key)) }

// Rates are a point's ok rates so far (nil before its first visit closed).
func (s *Store) Rates(key string) []float64 {
	if ps := s.pts[key]; ps != nil {
		return ps.Rates
	}
	return nil
}

// Screened is a point's screening rates (RunRecord.Screen).
func (s *Store) Screened(key string) []float64 { return s.screen[key].rates }

// Rank ranks the points so far against the baseline.
func (s *Store) Rank() rank.Ranking {
	var pts []rank.PointStats
	for _, k := range s.order {
		pts = append(pts, *s.pts[k])
	}
	rk := rank.RankVisits(pts, s.baseGroups, s.original, s.policy)
	rk.Baseline.Unit = cmp.Or(rk.Baseline.Unit, s.unit)
	return rk
}

// PooledLogSD is the pooled standard deviation of ln(rate) within points
// (and the baseline) with at least two runs: the run-to-run noise, as a
// fraction of the rate (rank.PoolNoise, as the ranking pools it).
func (s *Store) PooledLogSD() (float64, int) {
	groups := [][]float64{s.baseline}
	for _, k := range s.order {
		if ps := s.pts[k]; ps.Status == rank.StatusOK || ps.Status == rank.StatusEliminated {
			groups = append(groups, ps.Rates)
		}
	}
	nz := rank.PoolNoise(groups...)
	if nz.DoF == 0 {
		return math.NaN(), 0
	}
	return nz.SD, nz.DoF
}

// MedianOf is the median of xs, nil when xs is empty.
func MedianOf(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	return rank.Ptr(rank.Median(xs))
}

// Point is the statistics of a point so far (nil before its first visit
// closed); the runner reads them to write a point record.
func (s *Store) Point(key string) *rank.PointStats { return s.pts[key] }

// BaselineVisits is the baseline's ok rates so far, by visit.
func (s *Store) BaselineVisits() [][]float64 { return s.baseGroups }

// Baseline is the baseline's ok rates so far.
func (s *Store) Baseline() []float64 { return s.baseline }

// SetOriginal sets the axes' values when the sweep started: among tied
// points the one that changes fewer of them ranks first.
func (s *Store) SetOriginal(orig map[string]string) { s.original = orig }
