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
	PutP99        time.Duration
	PutMax        time.Duration
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

// summary averages rollouts into the benchmark's line.
type summary struct {
	Ordering      string
	Rollouts      int
	LeaderChanges float64
	FailedWrites  float64
	PutP99ms      float64
	PutMaxms      float64
}

func summarize(ordering string, rs []rolloutResult) summary {
	s := summary{Ordering: ordering, Rollouts: len(rs)}
	if len(rs) == 0 {
		return s
	}
	for _, r := range rs {
		s.LeaderChanges += float64(r.LeaderChanges)
		s.FailedWrites += float64(r.FailedWrites)
		s.PutP99ms += ms(r.PutP99)
		s.PutMaxms += ms(r.PutMax)
	}
	n := float64(len(rs))
	s.LeaderChanges /= n
	s.FailedWrites /= n
	s.PutP99ms /= n
	s.PutMaxms /= n
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (s summary) String() string {
	return fmt.Sprintf("bench-etcd: ordering=%s rollouts=%d leader_changes=%.1f failed_writes=%.1f put_p99_ms=%.1f put_max_ms=%.1f",
		s.Ordering, s.Rollouts, s.LeaderChanges, s.FailedWrites, s.PutP99ms, s.PutMaxms)
}
