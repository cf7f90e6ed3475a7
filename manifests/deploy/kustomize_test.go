package deploy_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// build runs kustomize (sigs.k8s.io/kustomize/api v0.20.1, the version
// kubectl v0.34 embeds for `kubectl apply -k`) on dir.
func build(t *testing.T, dir string) resmap.ResMap {
	t.Helper()
	opts := krusty.MakeDefaultOptions()
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return m
}

type container struct {
	Name    string   `json:"name"`
	Image   string   `json:"image"`
	Command []string `json:"command"`
	Ports   []struct {
		Name          string `json:"name"`
		ContainerPort int    `json:"containerPort"`
	} `json:"ports"`
}

type workload struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Selector map[string]any `json:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				Containers []container `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
		Ports []struct {
			Name string `json:"name"`
			Port int    `json:"port"`
		} `json:"ports"`
		Endpoints []struct {
			Port string `json:"port"`
		} `json:"endpoints"`
	} `json:"spec"`
}

func objects(t *testing.T, m resmap.ResMap) []workload {
	t.Helper()
	var out []workload
	for _, r := range m.Resources() {
		b, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		var w workload
		if err := yaml.Unmarshal(b, &w); err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

// tandemImage is what the daemon's and controller's containers must run:
// the images: entry named "tandem" of the kustomization, as kustomize's
// image transformer writes it.
func imageOf(k types.Kustomization, name string) string {
	for _, im := range k.Images {
		if im.Name != name {
			continue
		}
		ref := im.NewName
		if ref == "" {
			ref = name
		}
		if im.Digest != "" {
			return ref + "@" + im.Digest
		}
		if im.NewTag != "" {
			return ref + ":" + im.NewTag
		}
		return ref
	}
	return ""
}

func readKustomization(t *testing.T, path string) types.Kustomization {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var k types.Kustomization
	if err := yaml.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	return k
}

// checkImages: every container runs the image the kustomization names for
// it; no placeholder survives.
func checkImages(t *testing.T, objs []workload, k types.Kustomization) {
	t.Helper()
	wantTandem, wantProxy := imageOf(k, "tandem"), imageOf(k, "kube-rbac-proxy")
	if wantTandem == "" || wantProxy == "" {
		t.Fatalf("kustomization sets no image for tandem (%q) or kube-rbac-proxy (%q)", wantTandem, wantProxy)
	}
	seen := map[string]bool{}
	for _, o := range objs {
		for _, c := range o.Spec.Template.Spec.Containers {
			want := wantProxy
			if len(c.Command) > 0 && strings.HasPrefix(c.Command[0], "/usr/bin/machine-config-") {
				want = wantTandem
				seen[filepath.Base(c.Command[0])] = true
			}
			if c.Image != want {
				t.Errorf("%s/%s container %s: image %q, want %q", o.Kind, o.Metadata.Name, c.Name, c.Image, want)
			}
		}
	}
	if !seen["machine-config-daemon"] || !seen["machine-config-controller"] {
		t.Errorf("built manifests run %v, want both binaries", seen)
	}
}

func TestKustomizationSetsTheImage(t *testing.T) {
	k := readKustomization(t, "kustomization.yaml")
	checkImages(t, objects(t, build(t, ".")), k)

	// What docs/deploy.md tells an admin to do: `kustomize edit set image`
	// on a copy, with a digest. The same build must then run that image.
	dir := t.TempDir()
	for _, sub := range []string{"deploy", "rbac", "monitoring"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("..", sub))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range k.Images {
		switch k.Images[i].Name {
		case "tandem":
			k.Images[i] = types.Image{Name: "tandem", NewName: "registry.test/mco/tandem",
				Digest: "sha256:0f36ae9f9d8e1a1c4c0b2bd5c1b2ce5dbf5a1f5b1d1c2e6b2b4c7f3d8e9a0b1c"}
		case "kube-rbac-proxy":
			k.Images[i] = types.Image{Name: "kube-rbac-proxy", NewName: "registry.test/ocp/kube-rbac-proxy", NewTag: "v4.20"}
		}
	}
	b, err := yaml.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "deploy", "kustomization.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	checkImages(t, objects(t, build(t, filepath.Join(dir, "deploy"))), k)
}

// TestMetricsWiring: each metrics Service selects its workload's pods and
// targets a port kube-rbac-proxy listens on, and each ServiceMonitor selects
// its Service by label and port name.
func TestMetricsWiring(t *testing.T) {
	objs := objects(t, build(t, "."))
	byKind := map[string]map[string]workload{}
	for _, o := range objs {
		if byKind[o.Kind] == nil {
			byKind[o.Kind] = map[string]workload{}
		}
		byKind[o.Kind][o.Metadata.Name] = o
		if o.Kind != "Namespace" && !strings.HasPrefix(o.Kind, "Cluster") && o.Metadata.Namespace == "" {
			t.Errorf("%s %s has no namespace", o.Kind, o.Metadata.Name)
		}
	}
	for _, pair := range [][2]string{{"DaemonSet", "machine-config-daemon"}, {"Deployment", "machine-config-controller"}} {
		wl, ok := byKind[pair[0]][pair[1]]
		if !ok {
			t.Fatalf("no %s %s", pair[0], pair[1])
		}
		svc, ok := byKind["Service"][pair[1]]
		if !ok {
			t.Fatalf("no Service %s", pair[1])
		}
		for k, v := range svc.Spec.Selector {
			if wl.Spec.Template.Metadata.Labels[k] != v {
				t.Errorf("Service %s selects %s=%v; the %s's pods have %v", pair[1], k, v, pair[0], wl.Spec.Template.Metadata.Labels)
			}
		}
		for _, p := range svc.Spec.Ports {
			found := false
			for _, c := range wl.Spec.Template.Spec.Containers {
				for _, cp := range c.Ports {
					found = found || (cp.ContainerPort == p.Port && c.Name == "kube-rbac-proxy")
				}
			}
			if !found {
				t.Errorf("Service %s port %d: no kube-rbac-proxy container listens there", pair[1], p.Port)
			}
		}
		sm, ok := byKind["ServiceMonitor"][pair[1]]
		if !ok {
			t.Fatalf("no ServiceMonitor %s", pair[1])
		}
		ml, _ := sm.Spec.Selector["matchLabels"].(map[string]any)
		if len(ml) == 0 {
			t.Errorf("ServiceMonitor %s has no matchLabels", pair[1])
		}
		for k, v := range ml {
			if svc.Metadata.Labels[k] != v {
				t.Errorf("ServiceMonitor %s selects %s=%v; the Service has %v", pair[1], k, v, svc.Metadata.Labels)
			}
		}
		for _, e := range sm.Spec.Endpoints {
			if len(svc.Spec.Ports) == 0 || svc.Spec.Ports[0].Name != e.Port {
				t.Errorf("ServiceMonitor %s scrapes port %q; the Service names %v", pair[1], e.Port, svc.Spec.Ports)
			}
		}
	}
	// tandem's own alerts only: the MCO's PrometheusRules ship with the MCO
	// (manifests/monitoring/kustomization.yaml).
	if rules := slices.Sorted(maps.Keys(byKind["PrometheusRule"])); !slices.Equal(rules, []string{"tandem"}) {
		t.Errorf("PrometheusRules built: %v, want [tandem]", rules)
	}
}
