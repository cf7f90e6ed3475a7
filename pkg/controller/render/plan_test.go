package render

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

func roleSelector(role string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{constants.MachineConfigRoleLabel: role}}
}

func newPool(name string, sel *metav1.LabelSelector) *mcfgv1.MachineConfigPool {
	return &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Spec:       mcfgv1.MachineConfigPoolSpec{MachineConfigSelector: sel},
	}
}

func newMC(name, role, raw string) *mcfgv1.MachineConfig {
	m := &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if role != "" {
		m.Labels = map[string]string{constants.MachineConfigRoleLabel: role}
	}
	if raw != "" {
		m.Spec.Config = runtime.RawExtension{Raw: []byte(raw)}
	}
	return m
}

func renderedMC(pool *mcfgv1.MachineConfigPool, name string) *mcfgv1.MachineConfig {
	m := newMC(name, "", `{"ignition":{"version":"3.5.0"}}`)
	m.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(pool, poolKind)}
	return m
}

const validIgn = `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/x","contents":{"source":"data:,x"}}]}}`

func TestPlan(t *testing.T) {
	worker := newPool("worker", roleSelector("worker"))
	cases := []struct {
		name       string
		pool       *mcfgv1.MachineConfigPool
		configs    []*mcfgv1.MachineConfig
		wantReason string // "" for success
		wantAll    bool
		wantSource []string
		wantErr    string
	}{
		{
			name:       "selected configs merged in name order, others ignored",
			pool:       worker,
			configs:    []*mcfgv1.MachineConfig{newMC("99-w", "worker", validIgn), newMC("00-w", "worker", ""), newMC("00-m", "master", validIgn)},
			wantSource: []string{"00-w", "99-w"},
		},
		{
			name:       "an invalid MachineConfig degrades with its name",
			pool:       worker,
			configs:    []*mcfgv1.MachineConfig{newMC("00-w", "worker", ""), newMC("50-bad", "worker", `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"relative"}]}}`)},
			wantReason: ReasonInvalidMachineConfig, wantErr: "MachineConfig 50-bad is invalid",
		},
		{
			name:       "an invalid kernel type degrades",
			pool:       worker,
			configs:    []*mcfgv1.MachineConfig{func() *mcfgv1.MachineConfig { m := newMC("10-k", "worker", ""); m.Spec.KernelType = "nope"; return m }()},
			wantReason: ReasonInvalidMachineConfig, wantErr: "kernelType=nope",
		},
		{
			name:       "nothing selected",
			pool:       worker,
			configs:    []*mcfgv1.MachineConfig{newMC("00-m", "master", "")},
			wantReason: ReasonNoMachineConfigs, wantErr: "no MachineConfigs",
		},
		{
			name:       "a nil selector selects nothing",
			pool:       newPool("worker", nil),
			configs:    []*mcfgv1.MachineConfig{newMC("00-w", "worker", "")},
			wantReason: ReasonNoMachineConfigs, wantErr: "no MachineConfigs",
		},
		{
			name:    "an empty selector is refused without degrading",
			pool:    newPool("worker", &metav1.LabelSelector{}),
			configs: []*mcfgv1.MachineConfig{newMC("00-w", "worker", "")},
			wantAll: true,
		},
		{
			name: "a broad selector never picks up rendered configs",
			pool: newPool("notmaster", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: constants.MachineConfigRoleLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"master"}},
			}}),
			configs:    []*mcfgv1.MachineConfig{newMC("00-w", "worker", ""), renderedMC(worker, "rendered-worker-0123456789abcdef0123456789abcdef")},
			wantSource: []string{"00-w"},
		},
		{
			name:       "a malformed selector degrades",
			pool:       newPool("worker", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}),
			configs:    []*mcfgv1.MachineConfig{newMC("00-w", "worker", "")},
			wantReason: ReasonInvalidSelector, wantErr: "invalid machineConfigSelector",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(tc.pool, tc.configs, PlanOptions{ControllerVersion: "v-test"})
			if r.SelectsAll != tc.wantAll {
				t.Fatalf("SelectsAll = %v, want %v", r.SelectsAll, tc.wantAll)
			}
			if tc.wantAll {
				if r.Rendered != nil || r.Degraded() {
					t.Fatalf("a refused selector rendered or degraded: %+v", r)
				}
				return
			}
			if r.Reason != tc.wantReason || r.Degraded() != (tc.wantReason != "") {
				t.Fatalf("reason = %q err = %v, want %q", r.Reason, r.Err, tc.wantReason)
			}
			if tc.wantReason != "" {
				if r.Rendered != nil || !strings.Contains(r.Err.Error(), tc.wantErr) {
					t.Fatalf("rendered=%v err=%v, want no config and error containing %q", r.Rendered != nil, r.Err, tc.wantErr)
				}
				return
			}
			var src []string
			for _, s := range r.Source {
				if s.Kind != "MachineConfig" || s.APIVersion != "machineconfiguration.openshift.io/v1" {
					t.Errorf("source ref %+v lacks kind/apiVersion", s)
				}
				src = append(src, s.Name)
			}
			if !reflect.DeepEqual(src, tc.wantSource) {
				t.Errorf("source = %v, want %v", src, tc.wantSource)
			}
			if !mcfg.IsRenderedFor(tc.pool.Name, r.Rendered.Name) {
				t.Errorf("name %q is not rendered-%s-<hash>", r.Rendered.Name, tc.pool.Name)
			}
			ref := metav1.GetControllerOf(r.Rendered)
			if ref == nil || ref.Kind != "MachineConfigPool" || ref.Name != tc.pool.Name || ref.UID != tc.pool.UID {
				t.Errorf("controller ref = %+v, want the pool", ref)
			}
			if r.Rendered.Annotations[constants.GeneratedByControllerVersionAnnotation] != "v-test" {
				t.Errorf("annotations = %v", r.Rendered.Annotations)
			}
		})
	}
}

func TestPlanNameFollowsContent(t *testing.T) {
	pool := newPool("worker", roleSelector("worker"))
	a := Plan(pool, []*mcfgv1.MachineConfig{newMC("00-w", "worker", validIgn)}, PlanOptions{})
	again := Plan(pool, []*mcfgv1.MachineConfig{newMC("00-w", "worker", validIgn)}, PlanOptions{ControllerVersion: "other"})
	withKarg := newMC("00-w", "worker", validIgn)
	withKarg.Spec.KernelArguments = []string{"nosmt"}
	b := Plan(pool, []*mcfgv1.MachineConfig{withKarg}, PlanOptions{})
	if a.Err != nil || b.Err != nil {
		t.Fatalf("errors: %v %v", a.Err, b.Err)
	}
	if a.Rendered.Name != again.Rendered.Name {
		t.Errorf("same content, different names: %s %s", a.Rendered.Name, again.Rendered.Name)
	}
	if a.Rendered.Name == b.Rendered.Name {
		t.Errorf("different content, same name %s", a.Rendered.Name)
	}
}

func TestPoolsForConfig(t *testing.T) {
	worker := newPool("worker", roleSelector("worker"))
	infra := newPool("infra", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: constants.MachineConfigRoleLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", "infra"}},
	}})
	all := newPool("all", &metav1.LabelSelector{})
	pools := []*mcfgv1.MachineConfigPool{worker, infra, all}
	names := func(ps []*mcfgv1.MachineConfigPool) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	if got := names(PoolsForConfig(newMC("00-w", "worker", ""), pools)); !reflect.DeepEqual(got, []string{"worker", "infra"}) {
		t.Errorf("worker config feeds %v", got)
	}
	if got := names(PoolsForConfig(renderedMC(infra, "rendered-infra-x"), pools)); !reflect.DeepEqual(got, []string{"infra"}) {
		t.Errorf("rendered config belongs to %v", got)
	}
}

func TestInvalidConfigErrorIsKept(t *testing.T) {
	r := Plan(newPool("worker", roleSelector("worker")), []*mcfgv1.MachineConfig{newMC("50-bad", "worker", `{"ignition":{"version":"9.9.0"}}`)}, PlanOptions{})
	var ie *mcfg.InvalidConfigError
	if !errors.As(r.Err, &ie) || ie.Name != "50-bad" {
		t.Fatalf("err = %v, want *mcfg.InvalidConfigError for 50-bad", r.Err)
	}
}
