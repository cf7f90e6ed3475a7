package monitoring_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"
)

// loadSeries reads promtool/promqltest's "load <step>" block (one series
// per line in Prometheus' series notation, e.g. `m{a="b"} 0+1x10`, parsed
// by Prometheus' own parser.ParseSeriesDesc) into an in-memory queryable.
// (promqltest itself would pull the whole TSDB and its cloud
// dependencies into the vendor tree.)
func loadSeries(t *testing.T, input string) storage.Queryable {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(input), "\n")
	head := strings.Fields(lines[0])
	if len(head) != 2 || head[0] != "load" {
		t.Fatalf("want \"load <step>\", got %q", lines[0])
	}
	step, err := time.ParseDuration(head[1])
	if err != nil {
		t.Fatal(err)
	}
	var series []storage.Series
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		lset, vals, err := parser.ParseSeriesDesc(l)
		if err != nil {
			t.Fatalf("series %q: %v", l, err)
		}
		var samples []chunks.Sample
		for i, v := range vals {
			if v.Omitted {
				continue
			}
			samples = append(samples, fSample{t: int64(i) * step.Milliseconds(), f: v.Value})
		}
		series = append(series, storage.NewListSeries(lset, samples))
	}
	return &storage.MockQueryable{MockQuerier: &storage.MockQuerier{
		SelectMockFunction: func(_ bool, _ *storage.SelectHints, ms ...*labels.Matcher) storage.SeriesSet {
			var out []storage.Series
			for _, s := range series {
				if matchesAll(s.Labels(), ms) {
					out = append(out, s)
				}
			}
			return &listSet{series: out, i: -1}
		},
	}}
}

func matchesAll(l labels.Labels, ms []*labels.Matcher) bool {
	for _, m := range ms {
		if !m.Matches(l.Get(m.Name)) {
			return false
		}
	}
	return true
}

type fSample struct {
	t int64
	f float64
}

func (s fSample) T() int64                      { return s.t }
func (s fSample) F() float64                    { return s.f }
func (s fSample) H() *histogram.Histogram       { return nil }
func (s fSample) FH() *histogram.FloatHistogram { return nil }
func (s fSample) Type() chunkenc.ValueType      { return chunkenc.ValFloat }
func (s fSample) Copy() chunks.Sample           { return s }

type listSet struct {
	series []storage.Series
	i      int
}

func (l *listSet) Next() bool                        { l.i++; return l.i < len(l.series) }
func (l *listSet) At() storage.Series                { return l.series[l.i] }
func (l *listSet) Err() error                        { return nil }
func (l *listSet) Warnings() annotations.Annotations { return nil }
