package mcc

import (
	"sort"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// firstFamilyWins gathers from each gatherer in turn and keeps the first
// family of each name. tandem's controller exports the MCO's mcc_* and
// mco_* series itself (pkg/metrics); the MCO's controllers running beside
// it in the fork build register the same names, and two families of one
// name with different help fail a plain prometheus.Gatherers.
type firstFamilyWins []prometheus.Gatherer

func (g firstFamilyWins) Gather() ([]*dto.MetricFamily, error) {
	seen := map[string]bool{}
	var out []*dto.MetricFamily
	var firstErr error
	for _, gatherer := range g {
		families, err := gatherer.Gather()
		if err != nil && firstErr == nil {
			firstErr = err
		}
		for _, f := range families {
			if !seen[f.GetName()] {
				seen[f.GetName()] = true
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, firstErr
}
