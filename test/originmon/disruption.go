package originmon

import (
	"regexp"
	"slices"
	"time"
)

// Sample is one GET of a disruption sampler: when the request started and
// why it failed (empty: it succeeded).
type Sample struct {
	At  time.Time
	Err string
	// AuditID is the Audit-ID header the request carried, to find it in
	// kube-apiserver's audit log. It plays no part in the sums.
	AuditID string
}

// Interval is one disruption: from the start of the first failed request to
// the start of the next request that succeeded or failed differently.
type Interval struct {
	From, To time.Time
	Err      string
}

// OriginPeriod is origin's sampling period: "interval := 1 * time.Second"
// in RunEndpointMonitoring, and the minimum and rounding of the sum below.
const OriginPeriod = time.Second

// dnsLookupTimeout is origin's DnsLookupRegex (openshift/origin
// pkg/monitor/backenddisruption/disruption_locator.go, commit
// 2a0cb42e790e9afcf0c200e3cfdadfdb13cc9afc): such failures are a DNS problem
// of the machine running the tests, so origin records them at Warning level
// and leaves them out of the disruption it sums (which takes Error only).
var dnsLookupTimeout = regexp.MustCompile(`dial tcp: lookup.*: i/o timeout`)

// DisruptedSeconds sums failed samples into disruption as origin does for
// its 1 s samplers; see DisruptedSecondsEvery.
func DisruptedSeconds(samples []Sample) (float64, []Interval) {
	return DisruptedSecondsEvery(samples, OriginPeriod)
}

// DisruptedSecondsEvery turns samples taken every period into disruption
// intervals and sums them, following openshift/origin:
//
// Intervals — consumeSamples in pkg/monitor/backenddisruption/
// disruption_backend_sampler.go (commit
// 60c17c53896047fc967a5d06dd0bc1bfc0133e5f) walks the samples in the order
// they were started and keys each on its start time, not on when it
// returned, because a request that failed after a long timeout was already
// failing when it was sent. A failure opens an interval; further failures
// with the same error text extend it; a failure with another text closes
// it and opens a new one at that sample; a success closes it at its start.
// One still open at the end closes one period after the last sample.
//
// Sum — BackendDisruptionSeconds in pkg/monitor/monitorapi/disruption.go
// (commit 98a5dd066d5e4562b7d4c7c127fb94ced24849e7) keeps the Error-level
// intervals (so not the DNS-lookup timeouts above) and sums them with
// Intervals.Duration(1s) of pkg/monitor/monitorapi/types.go (commit
// 9bb246408bbca35b97d8e688c4167d8df13127fb): an interval of no length
// counts 0, one shorter than 1 s counts 1 s ("if a sample fails, you don't
// definitively know whether it was down just after t-1s or just before
// t"), then rounds the total to the nearest second. Origin's 1 s is its
// sampling period, so for another period we use that period for both the
// minimum and the rounding; at 1 s it is origin's arithmetic exactly.
//
// The intervals returned are the ones summed. samples need not be sorted.
func DisruptedSecondsEvery(samples []Sample, period time.Duration) (float64, []Interval) {
	if period <= 0 {
		period = OriginPeriod
	}
	sorted := slices.Clone(samples)
	slices.SortStableFunc(sorted, func(a, b Sample) int { return a.At.Compare(b.At) })

	var all []Interval
	var open *Interval
	for _, s := range sorted {
		if open != nil && s.Err != open.Err {
			open.To = s.At
			all = append(all, *open)
			open = nil
		}
		if s.Err != "" && open == nil {
			open = &Interval{From: s.At, Err: s.Err}
		}
	}
	if open != nil {
		open.To = sorted[len(sorted)-1].At.Add(period)
		all = append(all, *open)
	}

	var counted []Interval
	var total time.Duration
	for _, iv := range all {
		if dnsLookupTimeout.MatchString(iv.Err) {
			continue
		}
		counted = append(counted, iv)
		switch d := iv.To.Sub(iv.From); {
		case d <= 0:
		case d < period:
			total += period
		default:
			total += d
		}
	}
	return total.Round(period).Seconds(), counted
}

// SampleResult is what a Sampler saw.
type SampleResult struct {
	Samples, Failed  int
	DisruptedSeconds float64
	Intervals        []Interval
}

// Samples are the finished samples in start order, up to the first still
// in flight: like origin's consumer, which waits for the oldest.
func (s *Sampler) Samples() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Sample
	for _, sl := range s.slots {
		if !sl.done && !sl.dropped {
			break
		}
		if sl.done {
			out = append(out, sl.s)
		}
	}
	return out
}

// Result sums Samples as DisruptedSecondsEvery does at the sampler's period.
func (s *Sampler) Result() SampleResult {
	samples := s.Samples()
	r := SampleResult{Samples: len(samples)}
	for _, sm := range samples {
		if sm.Err != "" {
			r.Failed++
		}
	}
	r.DisruptedSeconds, r.Intervals = DisruptedSecondsEvery(samples, s.period)
	return r
}
