package main

import (
	"fmt"
	"slices"
	"time"
)

// rolloutResult is what one rollout measured.
type rolloutResult struct {
	LeaderChanges int
	Writes        int
	FailedWrites  int
	// DroppedRetried counts writes etcd dropped unapplied in a hand-over,
	// which the writer's client retried (pkg/etcd RetryUnapplied).
	DroppedRetried int
	PutP99         time.Duration
	PutMax         time.Duration
}

// percentile returns the p-th percentile (0..100) of ds by nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(p/100*float64(len(s))+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

// summary folds rollouts into the benchmark's line: means per rollout of
// leader changes, failed writes and put p99; the worst rollout's failed
// writes; the largest put of all (a mean of maxima would hide one stall in
// twenty rollouts).
type summary struct {
	Stop            string
	Ordering        string
	ClientRetry     bool
	Rollouts        int
	LeaderChanges   float64
	FailedWrites    float64
	FailedWritesMax int
	DroppedRetried  float64
	PutP99ms        float64
	PutMaxms        float64
}

func summarize(stop, ordering string, rs []rolloutResult) summary {
	s := summary{Stop: stop, Ordering: ordering, Rollouts: len(rs)}
	if len(rs) == 0 {
		return s
	}
	for _, r := range rs {
		s.LeaderChanges += float64(r.LeaderChanges)
		s.FailedWrites += float64(r.FailedWrites)
		s.FailedWritesMax = max(s.FailedWritesMax, r.FailedWrites)
		s.DroppedRetried += float64(r.DroppedRetried)
		s.PutP99ms += ms(r.PutP99)
		s.PutMaxms = max(s.PutMaxms, ms(r.PutMax))
	}
	n := float64(len(rs))
	s.LeaderChanges /= n
	s.FailedWrites /= n
	s.DroppedRetried /= n
	s.PutP99ms /= n
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (s summary) String() string {
	retry := "none"
	if s.ClientRetry {
		retry = "unapplied"
	}
	return fmt.Sprintf("bench-etcd: stop=%s ordering=%s client_retry=%s rollouts=%d leader_changes=%.2f failed_writes=%.2f failed_writes_max=%d dropped_retried=%.2f put_p99_ms=%.1f put_max_ms=%.1f",
		s.Stop, s.Ordering, retry, s.Rollouts, s.LeaderChanges, s.FailedWrites, s.FailedWritesMax, s.DroppedRetried, s.PutP99ms, s.PutMaxms)
}
