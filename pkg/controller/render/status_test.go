package render

import (
	"errors"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDesiredSpecConfiguration(t *testing.T) {
	src := []corev1.ObjectReference{{Kind: "MachineConfig", Name: "00-w"}}
	ok := Result{Rendered: &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-new"}}, Source: src}
	failed := Result{Err: errors.New("bad"), Reason: ReasonInvalidMachineConfig}
	withSpec := func(name string, source []corev1.ObjectReference) *mcfgv1.MachineConfigPool {
		p := newPool("worker", roleSelector("worker"))
		p.Spec.Configuration.Name = name
		p.Spec.Configuration.Source = source
		return p
	}
	cases := []struct {
		name        string
		pool        *mcfgv1.MachineConfigPool
		res         Result
		wantName    string
		wantChanged bool
	}{
		{"first render", withSpec("", nil), ok, "rendered-worker-new", true},
		{"new content", withSpec("rendered-worker-old", src), ok, "rendered-worker-new", true},
		{"same config, source list changed", withSpec("rendered-worker-new", nil), ok, "rendered-worker-new", true},
		{"up to date", withSpec("rendered-worker-new", src), ok, "rendered-worker-new", false},
		{"failure keeps the current config", withSpec("rendered-worker-old", src), failed, "rendered-worker-old", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := DesiredSpecConfiguration(tc.pool, tc.res)
			if got.Name != tc.wantName || changed != tc.wantChanged {
				t.Fatalf("got %q changed=%v, want %q changed=%v", got.Name, changed, tc.wantName, tc.wantChanged)
			}
		})
	}
}

func TestDesiredStatus(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Hour))
	ok := Result{Rendered: &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-new"}}}
	failed := Result{Err: errors.New("MachineConfig 50-bad is invalid: boom"), Reason: ReasonInvalidMachineConfig}

	pool := newPool("worker", roleSelector("worker"))
	st, changed := DesiredStatus(pool, ok, t0)
	c := GetCondition(&st, mcfgv1.MachineConfigPoolRenderDegraded)
	if !changed || c == nil || c.Status != corev1.ConditionFalse || st.Configuration.Name != "rendered-worker-new" {
		t.Fatalf("first render: changed=%v cond=%+v config=%q", changed, c, st.Configuration.Name)
	}

	pool.Status = st
	if _, changed := DesiredStatus(pool, ok, t1); changed {
		t.Fatalf("a second identical render changed the status")
	}

	st, changed = DesiredStatus(pool, failed, t1)
	c = GetCondition(&st, mcfgv1.MachineConfigPoolRenderDegraded)
	if !changed || c.Status != corev1.ConditionTrue || c.Reason != ReasonInvalidMachineConfig ||
		!strings.Contains(c.Message, "50-bad") || !c.LastTransitionTime.Equal(&t1) {
		t.Fatalf("failure: changed=%v cond=%+v", changed, c)
	}
	if st.Configuration.Name != "rendered-worker-new" {
		t.Fatalf("failure changed status.configuration to %q", st.Configuration.Name)
	}

	pool.Status = st
	pool.Status.Configuration.Name = "rendered-worker-running"
	later := Result{Rendered: &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-newer"}}}
	st, _ = DesiredStatus(pool, later, t1)
	if st.Configuration.Name != "rendered-worker-running" {
		t.Fatalf("a later render moved status.configuration to %q; that is the node controller's job", st.Configuration.Name)
	}
	if len(st.Conditions) != 1 {
		t.Fatalf("conditions = %+v, want one RenderDegraded", st.Conditions)
	}
}

func TestSetConditionKeepsTransitionTime(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	st := mcfgv1.MachineConfigPoolStatus{}
	SetCondition(&st, mcfgv1.MachineConfigPoolCondition{Type: mcfgv1.MachineConfigPoolRenderDegraded, Status: corev1.ConditionTrue, Message: "a"}, t0)
	if !SetCondition(&st, mcfgv1.MachineConfigPoolCondition{Type: mcfgv1.MachineConfigPoolRenderDegraded, Status: corev1.ConditionTrue, Message: "b"}, t1) {
		t.Fatal("message change not reported")
	}
	if got := st.Conditions[0].LastTransitionTime; !got.Equal(&t0) {
		t.Fatalf("transition time moved to %v without a status flip", got)
	}
}
