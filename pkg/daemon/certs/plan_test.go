package certs

import (
	"os"
	"reflect"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-mco/tandem/test/pki"
)

// selfSigned is a PEM certificate whose subject's common name is cn.
func selfSigned(t *testing.T, cn string) string {
	t.Helper()
	ca, err := pki.NewCA(cn)
	if err != nil {
		t.Fatal(err)
	}
	return string(ca.CertPEM)
}

func kubeconfigWithCA(t *testing.T, ca string) []byte {
	t.Helper()
	b, err := yaml.Marshal(clientcmdv1.Config{
		Clusters:       []clientcmdv1.NamedCluster{{Name: "local", Cluster: clientcmdv1.Cluster{Server: "https://api:6443", CertificateAuthorityData: []byte(ca)}}},
		AuthInfos:      []clientcmdv1.NamedAuthInfo{{Name: "kubelet", AuthInfo: clientcmdv1.AuthInfo{Token: "t"}}},
		CurrentContext: "kubelet",
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func caOf(t *testing.T, kc []byte) string {
	t.Helper()
	var c clientcmdv1.Config
	if err := yaml.Unmarshal(kc, &c); err != nil {
		t.Fatal(err)
	}
	if c.Clusters[0].Cluster.Server != "https://api:6443" || len(c.AuthInfos) != 1 || c.AuthInfos[0].AuthInfo.Token != "t" {
		t.Errorf("kubeconfig lost its other fields: %s", kc)
	}
	return string(c.Clusters[0].Cluster.CertificateAuthorityData)
}

func cc(rv, rotate string, spec mcfgv1.ControllerConfigSpec) *mcfgv1.ControllerConfig {
	c := &mcfgv1.ControllerConfig{ObjectMeta: metav1.ObjectMeta{Name: ControllerConfigName, ResourceVersion: rv}, Spec: spec}
	if rotate != "" {
		c.Annotations = map[string]string{ServiceCARotateAnnotation: rotate}
	}
	return c
}

func TestPlanSyncBundles(t *testing.T) {
	spec := mcfgv1.ControllerConfigSpec{
		KubeAPIServerServingCAData: []byte("kube-ca"),
		CloudProviderCAData:        nil,
		InternalRegistryPullSecret: []byte(`{"auths":{}}` + "\n"),
		ImageRegistryBundleData:    []mcfgv1.ImageRegistryBundle{{File: "image-registry.svc..5000", Data: []byte("op")}},
		ImageRegistryBundleUserData: []mcfgv1.ImageRegistryBundle{
			{File: "user.example.com", Data: []byte("user")},
			{File: "image-registry.svc..5000", Data: []byte("user-wins")},
		},
	}
	threeFiles := func(modes map[string]os.FileMode) []Write {
		m := func(p string) os.FileMode {
			if v, ok := modes[p]; ok {
				return v
			}
			return 0o644
		}
		return []Write{
			{InternalRegistryPullSecretPath, []byte(`{"auths":{}}` + "\n"), m(InternalRegistryPullSecretPath)},
			{KubeletCAPath, []byte("kube-ca\n"), m(KubeletCAPath)},
			{CloudCAPath, []byte("\n"), m(CloudCAPath)},
		}
	}
	cases := []struct {
		name    string
		cc      *mcfgv1.ControllerConfig
		st      State
		want    Plan
		wantErr string
	}{
		{name: "another ControllerConfig", cc: &mcfgv1.ControllerConfig{ObjectMeta: metav1.ObjectMeta{Name: "other", ResourceVersion: "5"}, Spec: spec}},
		{name: "nothing", cc: nil},
		{
			name: "new node without certs.d: the three files, no registry, annotated",
			cc:   cc("5", "false", spec),
			want: Plan{Writes: threeFiles(nil), Annotations: map[string]string{LastSyncedAnnotation: "5", LastObservedServerCAAnnotation: "false"}},
		},
		{
			name: "synced already: nothing",
			cc:   cc("5", "false", spec),
			st:   State{NodeAnnotations: map[string]string{LastSyncedAnnotation: "5", LastObservedServerCAAnnotation: "false"}, CertsDirExists: true},
		},
		{
			name: "existing modes kept; certs.d: stale removed, user bundle wins, ports as colons",
			cc:   cc("6", "false", spec),
			st: State{
				NodeAnnotations: map[string]string{LastSyncedAnnotation: "5", LastObservedServerCAAnnotation: "false"},
				Modes:           map[string]os.FileMode{KubeletCAPath: 0o600},
				CertsDirExists:  true, CertsDirs: []string{"stale.example.com", "image-registry.svc:5000", "a-old"},
			},
			want: Plan{
				Writes:     threeFiles(map[string]os.FileMode{KubeletCAPath: 0o600}),
				RemoveDirs: []string{"/etc/docker/certs.d/a-old", "/etc/docker/certs.d/stale.example.com"},
				RegistryWrites: []Write{
					{"/etc/docker/certs.d/image-registry.svc:5000/ca.crt", []byte("user-wins"), 0o644},
					{"/etc/docker/certs.d/user.example.com/ca.crt", []byte("user"), 0o644},
				},
				Annotations: map[string]string{LastSyncedAnnotation: "6"},
			},
		},
		{
			name:    "a bundle name that is a path",
			cc:      cc("6", "", mcfgv1.ControllerConfigSpec{ImageRegistryBundleUserData: []mcfgv1.ImageRegistryBundle{{File: "a/b", Data: []byte("x")}}}),
			st:      State{CertsDirExists: true},
			wantErr: "not a directory name",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PlanSync(c.cc, c.st)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("plan\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestPlanSyncServerCARotation(t *testing.T) {
	oldCA := selfSigned(t, "kube-apiserver-service-network-signer")
	newCA := selfSigned(t, "kube-apiserver-service-network-signer-2")
	lbCA := selfSigned(t, "openshift-kube-apiserver-operator_kube-apiserver-lb-signer@1")
	onDisk := kubeconfigWithCA(t, oldCA)
	kubelet := kubeconfigWithCA(t, "kubelet's own")
	rotated := map[string]string{LastSyncedAnnotation: "5", LastObservedServerCAAnnotation: "false"}
	type want struct {
		kubeconfigCA string // "" : not rewritten
		restart      bool
		err          string
	}
	cases := []struct {
		name   string
		ann    map[string]string
		bundle string
		kc     []byte
		want   want
	}{
		{name: "a new signer: merged, kubelet re-bootstrapped", ann: rotated, bundle: oldCA + newCA, kc: onDisk,
			want: want{kubeconfigCA: strings.TrimSpace(oldCA) + "\n" + strings.TrimSpace(newCA), restart: true}},
		{name: "only a load balancer signer: merged, no restart", ann: rotated, bundle: oldCA + lbCA, kc: onDisk,
			want: want{kubeconfigCA: strings.TrimSpace(oldCA) + "\n" + strings.TrimSpace(lbCA)}},
		{name: "the same bundle: left alone", ann: rotated, bundle: oldCA + "\n\n", kc: onDisk},
		{name: "a dropped certificate only: left alone", ann: rotated, bundle: oldCA, kc: kubeconfigWithCA(t, oldCA+newCA)},
		// The MCO compares the pieces as text: the second certificate on
		// disk carries the newline before it, the first of the bundle none.
		{name: "a certificate moved to the front counts as added", ann: rotated, bundle: newCA, kc: kubeconfigWithCA(t, oldCA+newCA),
			want: want{kubeconfigCA: strings.TrimSpace(newCA), restart: true}},
		{name: "a piece without PEM ends the bundle", ann: rotated, bundle: newCA + "not pem -----END CERTIFICATE-----" + lbCA, kc: onDisk,
			want: want{kubeconfigCA: strings.TrimSpace(newCA), restart: true}},
		{name: "rotation observed already: no merge", ann: map[string]string{LastSyncedAnnotation: "5", LastObservedServerCAAnnotation: "true"}, bundle: oldCA + newCA, kc: onDisk},
		{name: "no kubeconfig", ann: rotated, bundle: oldCA + newCA, kc: nil, want: want{err: "kubeconfig is missing"}},
		{name: "a kubeconfig without clusters", ann: rotated, bundle: oldCA + newCA, kc: []byte("apiVersion: v1\nkind: Config\n"), want: want{err: "no cluster"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			config := cc("5", "true", mcfgv1.ControllerConfigSpec{KubeAPIServerServingCAData: []byte("x")})
			if got := NeedsServerCA(config, c.ann); got != (c.ann[LastObservedServerCAAnnotation] != "true") {
				t.Errorf("NeedsServerCA = %v", got)
			}
			st := State{NodeAnnotations: c.ann, ServerCA: []byte(c.bundle), Kubeconfig: c.kc, KubeletKubeconfig: kubelet,
				Modes: map[string]os.FileMode{KubeconfigPath: 0o600}}
			p, err := PlanSync(config, st)
			if c.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.want.err) {
					t.Fatalf("err = %v, want %q", err, c.want.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// A rotation rewrites the bundles at every sync.
			if len(p.Writes) < 3 {
				t.Errorf("writes %+v: want the bundles rewritten", p.Writes)
			}
			var kc *Write
			for i := range p.Writes {
				if p.Writes[i].Path == KubeconfigPath {
					kc = &p.Writes[i]
				}
			}
			switch {
			case c.want.kubeconfigCA == "" && kc != nil:
				t.Errorf("kubeconfig rewritten: %s", kc.Data)
			case c.want.kubeconfigCA != "" && kc == nil:
				t.Errorf("kubeconfig not rewritten")
			case kc != nil:
				if got := caOf(t, kc.Data); got != c.want.kubeconfigCA {
					t.Errorf("kubeconfig CA\n got %q\nwant %q", got, c.want.kubeconfigCA)
				}
				if kc.Mode != 0o600 {
					t.Errorf("kubeconfig mode %o, want the existing 0600", kc.Mode)
				}
			}
			if got := p.Restart != nil; got != c.want.restart {
				t.Fatalf("restart = %v, want %v", got, c.want.restart)
			}
			if p.Restart != nil {
				if p.Restart.Kubeconfig.Path != KubeletKubeconfigPath || caOf(t, p.Restart.Kubeconfig.Data) != c.want.kubeconfigCA {
					t.Errorf("kubelet kubeconfig %s: %s", p.Restart.Kubeconfig.Path, p.Restart.Kubeconfig.Data)
				}
			}
			if want := map[string]string{LastObservedServerCAAnnotation: "true"}; c.ann[LastObservedServerCAAnnotation] != "true" && !reflect.DeepEqual(p.Annotations, want) {
				t.Errorf("annotations %v, want %v", p.Annotations, want)
			}
		})
	}
}
