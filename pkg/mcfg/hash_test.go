package mcfg

import (
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestRenderedNameIsContentAddressed(t *testing.T) {
	spec := func(raw, osImage string) mcfgv1.MachineConfigSpec {
		return mcfgv1.MachineConfigSpec{OSImageURL: osImage, Config: runtime.RawExtension{Raw: []byte(raw)}, KernelArguments: []string{}}
	}
	a := `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/a"}]}}`
	aReordered := `{"storage":{"files":[{"path":"/a"}]},"ignition":{"version":"3.5.0"}}`
	b := `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/b"}]}}`

	name := func(pool string, s mcfgv1.MachineConfigSpec) string {
		n, err := RenderedName(pool, s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	base := name("worker", spec(a, "img"))
	if !strings.HasPrefix(base, "rendered-worker-") || !IsRenderedFor("worker", base) {
		t.Fatalf("name %q is not rendered-worker-<hash>", base)
	}
	if got := name("worker", spec(aReordered, "img")); got != base {
		t.Errorf("JSON key order changed the name: %s vs %s", got, base)
	}
	for what, other := range map[string]string{
		"ignition": name("worker", spec(b, "img")),
		"os image": name("worker", spec(a, "img2")),
		"pool":     name("infra", spec(a, "img")),
	} {
		if other == base {
			t.Errorf("a different %s gave the same name %s", what, base)
		}
	}
}

func TestIsRenderedFor(t *testing.T) {
	h := strings.Repeat("a", 32)
	cases := []struct {
		pool, name string
		want       bool
	}{
		{"worker", "rendered-worker-" + h, true},
		{"worker", "rendered-worker-rt-" + h, false},
		{"worker-rt", "rendered-worker-rt-" + h, true},
		{"worker", "rendered-worker-" + h[:31], false},
		{"worker", "rendered-worker-" + strings.Repeat("g", 32), false},
		{"worker", "99-worker-ssh", false},
	}
	for _, tc := range cases {
		if got := IsRenderedFor(tc.pool, tc.name); got != tc.want {
			t.Errorf("IsRenderedFor(%q, %q) = %v, want %v", tc.pool, tc.name, got, tc.want)
		}
	}
}
