package scale

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/scale/planfixture"
)

// PlannerPoint is node.Plan's cost at one pool size: the median over the
// trials of the mean time per plan within a trial, and the spread.
type PlannerPoint struct {
	Nodes    int       `json:"nodes"`
	MedianMs float64   `json:"median_ms"`
	MinMs    float64   `json:"min_ms"`
	MaxMs    float64   `json:"max_ms"`
	TrialsMs []float64 `json:"trials_ms"`
}

// PlannerReport is the planner's slope: time ratios between sizes within
// one run, and the exponent k of time ~ nodes^k between the extremes.
type PlannerReport struct {
	Points   []PlannerPoint `json:"points"`
	Ratios   []string       `json:"ratios"`
	Exponent float64        `json:"exponent"`
}

// BenchPlanner times node.Plan on planfixture.Pool at each size, in
// trials whose size order rotates (interleaved, so drift in the machine's
// load spreads over every size), each trial planning for at least minTime.
func BenchPlanner(sizes []int, trials int, minTime time.Duration) PlannerReport {
	type input struct {
		pool  node.PoolView
		nodes []node.NodeView
		facts node.Facts
	}
	in := make([]input, len(sizes))
	for i, n := range sizes {
		p, ns, f := planfixture.Pool(n)
		in[i] = input{p, ns, f}
	}
	perSize := make([][]float64, len(sizes))
	for t := range trials {
		for k := range sizes {
			i := (k + t) % len(sizes)
			runtime.GC()
			start := time.Now()
			plans := 0
			for plans < 3 || time.Since(start) < minTime {
				_ = node.Plan(in[i].pool, in[i].nodes, in[i].facts)
				plans++
			}
			perSize[i] = append(perSize[i], float64(time.Since(start))/float64(plans)/float64(time.Millisecond))
		}
	}
	var r PlannerReport
	for i, n := range sizes {
		s := slices.Clone(perSize[i])
		slices.Sort(s)
		r.Points = append(r.Points, PlannerPoint{Nodes: n, MedianMs: s[len(s)/2], MinMs: s[0], MaxMs: s[len(s)-1], TrialsMs: perSize[i]})
	}
	for i := 1; i < len(r.Points); i++ {
		a, b := r.Points[i-1], r.Points[i]
		r.Ratios = append(r.Ratios, fmt.Sprintf("%d->%d nodes (x%.0f): time x%.1f", a.Nodes, b.Nodes,
			float64(b.Nodes)/float64(a.Nodes), b.MedianMs/a.MedianMs))
	}
	if len(r.Points) > 1 {
		a, b := r.Points[0], r.Points[len(r.Points)-1]
		r.Exponent = math.Log(b.MedianMs/a.MedianMs) / math.Log(float64(b.Nodes)/float64(a.Nodes))
	}
	return r
}

// Lines renders the planner figures.
func (r PlannerReport) Lines() []string {
	var out []string
	for _, p := range r.Points {
		out = append(out, fmt.Sprintf("bench-scale: planner nodes=%d plan_ms=%.2f spread_ms=%.2f..%.2f trials=%d",
			p.Nodes, p.MedianMs, p.MinMs, p.MaxMs, len(p.TrialsMs)))
	}
	if len(r.Points) > 1 {
		out = append(out, fmt.Sprintf("bench-scale: planner slope exponent=%.2f (time ~ nodes^k; 1 is linear) %s",
			r.Exponent, joinRatios(r.Ratios)))
	}
	return out
}

func joinRatios(rs []string) string {
	s := ""
	for i, r := range rs {
		if i > 0 {
			s += "; "
		}
		s += r
	}
	return s
}
