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
