package node

import (
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestStatusPacerHoldsOnlyCountChanges(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	base := mcfgv1.MachineConfigPoolStatus{MachineCount: 10, UpdatedMachineCount: 3,
		Conditions: []mcfgv1.MachineConfigPoolCondition{{Type: mcfgv1.MachineConfigPoolUpdating, Status: corev1.ConditionTrue}}}
	counts := *base.DeepCopy()
	counts.UpdatedMachineCount, counts.ReadyMachineCount, counts.UnavailableMachineCount = 4, 4, 1
	cond := *counts.DeepCopy()
	cond.Conditions[0].Status = corev1.ConditionFalse
	config := *counts.DeepCopy()
	config.Configuration.Name = "rendered-worker-new"

	p := newStatusPacer(5 * time.Second)
	if w := p.hold("worker", base, counts, t0); w != 0 {
		t.Errorf("first write of a pool held %s; the pacer knows no earlier write", w)
	}
	p.wrote("worker", t0)
	for _, tc := range []struct {
		name string
		next mcfgv1.MachineConfigPoolStatus
		at   time.Time
		want time.Duration
	}{
		{"counts only, 2s after a write", counts, t0.Add(2 * time.Second), 3 * time.Second},
		{"counts only, at the interval", counts, t0.Add(5 * time.Second), 0},
		{"a condition changed", cond, t0.Add(time.Second), 0},
		{"the configuration changed", config, t0.Add(time.Second), 0},
	} {
		if got := p.hold("worker", base, tc.next, tc.at); got != tc.want {
			t.Errorf("%s: hold = %s, want %s", tc.name, got, tc.want)
		}
	}
	if w := p.hold("master", base, counts, t0.Add(time.Second)); w != 0 {
		t.Errorf("another pool held %s by worker's write", w)
	}
	if w := newStatusPacer(-1).hold("worker", base, counts, t0); w != 0 {
		t.Errorf("a negative interval held %s", w)
	}
}
