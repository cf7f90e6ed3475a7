package daemon

import (
	"slices"
	"testing"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// The certificate writer's files in a MachineConfig, as the MCO's update
// path treats them (release-4.21 on_disk_validation.go getFilesToIgnore,
// update.go writeFiles skipCertificateWrite and deleteStaleData
// certsToSkip).
func TestCertificateWriterFilesInConfigs(t *testing.T) {
	const (
		kubeletCA = "/etc/kubernetes/kubelet-ca.crt"
		cloudCA   = "/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem"
		pull      = "/etc/mco/internal-registry-pull-secret.json"
		userCA    = "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt"
		other     = "/etc/other.conf"
	)
	paths := func(ns []files.Node) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.Path)
		}
		return out
	}
	written := []files.Node{{Path: kubeletCA, Kind: files.KindFile}, {Path: cloudCA, Kind: files.KindFile}, {Path: pull, Kind: files.KindFile}, {Path: userCA, Kind: files.KindFile}, {Path: other, Kind: files.KindFile}}
	dropped := []files.Node{{Path: kubeletCA, Kind: files.KindAbsent}, {Path: cloudCA, Kind: files.KindAbsent}, {Path: pull, Kind: files.KindAbsent}, {Path: userCA, Kind: files.KindAbsent}, {Path: other, Kind: files.KindAbsent}}
	cases := []struct {
		name string
		got  []files.Node
		want []string
	}{
		{"validation skips the writer's files", validated(written), []string{userCA, other}},
		{"an update does not write the kubelet CA", forUpdate(written), []string{cloudCA, pull, userCA, other}},
		{"an update keeps the dropped CA bundles", forUpdate(dropped), []string{pull, other}},
	}
	for _, c := range cases {
		if got := paths(c.got); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
