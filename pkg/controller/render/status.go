package render

import (
	"fmt"
	"reflect"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DesiredSpecConfiguration returns the spec.configuration pool should have
// after r, and whether that differs from what it has. A failed render keeps
// the current configuration: the last good rendered config stays in force.
func DesiredSpecConfiguration(pool *mcfgv1.MachineConfigPool, r Result) (mcfgv1.MachineConfigPoolStatusConfiguration, bool) {
	cur := pool.Spec.Configuration
	if r.Rendered == nil {
		return cur, false
	}
	want := mcfgv1.MachineConfigPoolStatusConfiguration{
		ObjectReference: corev1.ObjectReference{Name: r.Rendered.Name},
		Source:          r.Source,
	}
	return want, !reflect.DeepEqual(normalizeConfiguration(cur), normalizeConfiguration(want))
}

// normalizeConfiguration makes an empty source list and a missing one compare equal.
func normalizeConfiguration(c mcfgv1.MachineConfigPoolStatusConfiguration) mcfgv1.MachineConfigPoolStatusConfiguration {
	if len(c.Source) == 0 {
		c.Source = nil
	}
	return c
}

// DesiredStatus returns pool's status after r, and whether it changed:
// RenderDegraded True with r's reason on failure, False on success; the
// ControllerConfig condition and certExpirys from r; and, on
// the very first successful render only, status.configuration set to the new
// config (as the MCO's bootstrap does). Later status.configuration changes
// belong to the node controller, which moves it once every node runs the
// spec's config.
func DesiredStatus(pool *mcfgv1.MachineConfigPool, r Result, now metav1.Time) (mcfgv1.MachineConfigPoolStatus, bool) {
	st := *pool.Status.DeepCopy()
	cond := mcfgv1.MachineConfigPoolCondition{Type: mcfgv1.MachineConfigPoolRenderDegraded, Status: corev1.ConditionFalse}
	if r.Degraded() {
		cond.Status = corev1.ConditionTrue
		cond.Reason = r.Reason
		cond.Message = fmt.Sprintf("Failed to render configuration for pool %s: %v", pool.Name, r.Err)
	}
	changed := SetCondition(&st, cond, now)
	if r.Inputs.Type != "" {
		changed = SetCondition(&st, r.Inputs, now) || changed
	}
	if r.CertExpirys != nil && !reflect.DeepEqual(st.CertExpirys, r.CertExpirys) {
		st.CertExpirys = r.CertExpirys
		changed = true
	}
	if r.Rendered != nil && st.Configuration.Name == "" {
		st.Configuration = mcfgv1.MachineConfigPoolStatusConfiguration{
			ObjectReference: corev1.ObjectReference{Name: r.Rendered.Name},
			Source:          r.Source,
		}
		changed = true
	}
	return st, changed
}

// SetCondition puts c into st, replacing a condition of the same type. The
// transition time moves only when the status flips. It reports whether
// anything changed.
func SetCondition(st *mcfgv1.MachineConfigPoolStatus, c mcfgv1.MachineConfigPoolCondition, now metav1.Time) bool {
	for i := range st.Conditions {
		old := &st.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
			return false
		}
		c.LastTransitionTime = old.LastTransitionTime
		if old.Status != c.Status {
			c.LastTransitionTime = now
		}
		*old = c
		return true
	}
	c.LastTransitionTime = now
	st.Conditions = append(st.Conditions, c)
	return true
}

// GetCondition returns the condition of type t, or nil.
func GetCondition(st *mcfgv1.MachineConfigPoolStatus, t mcfgv1.MachineConfigPoolConditionType) *mcfgv1.MachineConfigPoolCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}
