package layering

import (
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func mosc(name, pool string) *mcfgv1.MachineOSConfig {
	return &mcfgv1.MachineOSConfig{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: mcfgv1.MachineOSConfigSpec{MachineConfigPool: mcfgv1.MachineConfigPoolReference{Name: pool}}}
}

// The MCO's IsLayeredPool (release-4.21 db84d8368ef7,
// pkg/controller/common/mos_state.go): layered iff a MachineOSConfig names
// the pool; its name is only matched, never its labels or the pool's.
func TestConfigFor(t *testing.T) {
	cases := []struct {
		name  string
		moscs []*mcfgv1.MachineOSConfig
		pool  string
		want  string
	}{
		{name: "none", pool: "worker", want: ""},
		{name: "another pool's", moscs: []*mcfgv1.MachineOSConfig{mosc("infra-os", "infra")}, pool: "worker", want: ""},
		{name: "the pool's", moscs: []*mcfgv1.MachineOSConfig{mosc("infra-os", "infra"), mosc("worker-os", "worker")}, pool: "worker", want: "worker-os"},
		{name: "named unlike the pool", moscs: []*mcfgv1.MachineOSConfig{mosc("anything", "master")}, pool: "master", want: "anything"},
		{name: "several: the first by name, whatever the order",
			moscs: []*mcfgv1.MachineOSConfig{mosc("b", "worker"), mosc("a", "worker"), mosc("c", "worker")}, pool: "worker", want: "a"},
		{name: "a prefix is not a match", moscs: []*mcfgv1.MachineOSConfig{mosc("x", "worker-rt")}, pool: "worker", want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ConfigFor(tc.moscs, tc.pool); got != tc.want {
				t.Errorf("ConfigFor = %q, want %q", got, tc.want)
			}
		})
	}
	var s *Source
	if got, err := s.ConfigFor("worker"); got != "" || err != nil {
		t.Errorf("nil Source: %q, %v", got, err)
	}
}
