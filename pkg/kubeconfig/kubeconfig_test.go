package kubeconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// The MCO's daemon takes only the API server's address from the kubelet's
// kubeconfig (cmd/machine-config-daemon/start.go, release-4.21).
func TestAPIServerOfTheKubeletKubeconfig(t *testing.T) {
	dir := t.TempDir()
	write := func(server string) string {
		p := filepath.Join(dir, "kc")
		kc := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"" + server + "\"}\n" +
			"contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\nusers:\n- name: u\n  user: {}\n"
		if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct{ server, want string }{
		{"https://api-int.cluster.example:6443", "https://api-int.cluster.example:6443"},
		{"https://[fd00::1]:6443", "https://[fd00::1]:6443"},
		{"https://api-int.cluster.example", "https://api-int.cluster.example:443"},
	}
	for _, c := range cases {
		got, err := apiServerOf(write(c.server))
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.server, got, err, c.want)
		}
	}
	if _, err := apiServerOf(write("not a url")); err == nil {
		t.Error("a server without a host: want an error")
	}
	if _, err := apiServerOf(filepath.Join(dir, "absent")); !os.IsNotExist(err) {
		t.Errorf("absent file: err = %v, want not-exist", err)
	}
}

// The daemon writes its Node with the kubelet's credentials when the node
// has them (the MCO's pkg/daemon/writer.go, release-4.21); a --kubeconfig
// (tests) is used for everything; without either, the service account.
func TestLoadNodeWriter(t *testing.T) {
	dir := t.TempDir()
	kubelet := filepath.Join(dir, "kubelet-kubeconfig")
	kc := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://api-int.cluster.example:6443\"}\n" +
		"contexts:\n- name: x\n  context: {cluster: c, user: node}\ncurrent-context: x\nusers:\n- name: node\n  user: {token: kubelet-token}\n"
	other := filepath.Join(dir, "flag-kubeconfig")
	for _, p := range []string{kubelet, other} {
		if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if cfg, ok, err := LoadNodeWriter("", kubelet); err != nil || !ok || cfg.BearerToken != "kubelet-token" || cfg.Host != "https://api-int.cluster.example:6443" {
		t.Errorf("with the kubelet's kubeconfig: %+v, %t, %v", cfg, ok, err)
	}
	if _, ok, err := LoadNodeWriter(other, filepath.Join(dir, "absent")); err != nil || !ok {
		t.Errorf("with --kubeconfig: %t, %v", ok, err)
	}
	if cfg, ok, err := LoadNodeWriter("", filepath.Join(dir, "absent")); err != nil || ok || cfg != nil {
		t.Errorf("without the kubelet's kubeconfig: %v, %t, %v; want the service account (not ok)", cfg, ok, err)
	}
	if err := os.WriteFile(kubelet, []byte("not: [a kubeconfig"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadNodeWriter("", kubelet); err == nil {
		t.Error("a broken kubelet kubeconfig: want an error, not the service account")
	}
}
