package node

import (
	"sync"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// statusPacer spaces out the pool status writes that only move machine
// counts. During a rollout every node transition changes a count, and a
// 1,000-node pool would write its status a few thousand times (make
// bench-scale); the counts may lag by the interval, while conditions (Updated,
// Degraded, DisruptionHeld...) and the configuration are written at once.
// It remembers only when it last wrote each pool, for pacing: no decision
// depends on it.
type statusPacer struct {
	interval time.Duration
	mu       sync.Mutex
	last     map[string]time.Time
}

func newStatusPacer(interval time.Duration) *statusPacer {
	if interval == 0 {
		interval = 5 * time.Second
	}
	return &statusPacer{interval: interval, last: map[string]time.Time{}}
}

// hold returns how long to wait before writing next over prev (0: write
// now). Only a change of counts alone is held.
func (p *statusPacer) hold(pool string, prev, next mcfgv1.MachineConfigPoolStatus, now time.Time) time.Duration {
	if p.interval < 0 || !onlyCountsDiffer(prev, next) {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	last, ok := p.last[pool]
	if !ok {
		return 0
	}
	if wait := p.interval - now.Sub(last); wait > 0 {
		return wait
	}
	return 0
}

// wrote notes a status write of pool.
func (p *statusPacer) wrote(pool string, now time.Time) {
	p.mu.Lock()
	p.last[pool] = now
	p.mu.Unlock()
}

func onlyCountsDiffer(a, b mcfgv1.MachineConfigPoolStatus) bool {
	a, b = *a.DeepCopy(), *b.DeepCopy()
	for _, s := range []*mcfgv1.MachineConfigPoolStatus{&a, &b} {
		s.MachineCount, s.UpdatedMachineCount, s.ReadyMachineCount = 0, 0, 0
		s.UnavailableMachineCount, s.DegradedMachineCount = 0, 0
	}
	return equality.Semantic.DeepEqual(a, b)
}
