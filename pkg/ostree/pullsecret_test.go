package ostree

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The MCO's rule (openshift/machine-config-operator release-4.21
// pkg/daemon/image_manager_helper.go useMergedPullSecrets): the merged
// internal-registry secret when it exists and is valid JSON, else the
// kubelet's pull secret.
func TestPullSecretTarget(t *testing.T) {
	const merged = "/etc/mco/internal-registry-pull-secret.json"
	const kubelet = "/var/lib/kubelet/config.json"
	for _, tc := range []struct {
		name    string
		content []byte
		err     error
		want    string
		wantErr bool
	}{
		{"no merged secret", nil, fs.ErrNotExist, kubelet, false},
		{"merged secret", []byte(`{"auths":{}}`), nil, merged, false},
		{"merged secret not JSON", []byte(`{"auths":`), nil, kubelet, false},
		{"merged secret unreadable", nil, fs.ErrPermission, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pullSecretTarget(func(p string) ([]byte, error) {
				if p != merged {
					t.Fatalf("read %s", p)
				}
				return tc.content, tc.err
			})
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("got %q %v, want %q (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestStageHandsRPMOstreeThePullSecret: against a registry that requires
// authentication, staging works only because the client links
// /run/ostree/auth.json to the pull secret (the MCO's symlink), and again
// after a reboot has emptied /run; a client that does not link cannot pull.
func TestStageHandsRPMOstreeThePullSecret(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, Options{})
	link := filepath.Join(n.Run, "ostree", "auth.json")
	if _, err := n.client.Stage(ctx, img2.Ref); err != nil {
		t.Fatalf("stage with the pull secret: %v", err)
	}
	if got, err := os.Readlink(link); err != nil || got != kubeletPullSecret {
		t.Fatalf("%s -> %q (%v), want a link to %s", link, got, err, kubeletPullSecret)
	}
	n.powerLoss() // /run is emptied
	if _, err := os.Lstat(link); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the link survived the boot: %v", err)
	}
	if _, err := n.client.Stage(ctx, img3.Ref); err != nil {
		t.Fatalf("stage after a boot: %v", err)
	}
	if got, err := os.Readlink(link); err != nil || got != kubeletPullSecret {
		t.Fatalf("after the boot: %s -> %q (%v)", link, got, err)
	}

	// The same node through a client that does not link: refused.
	n.powerLoss()
	bare := NewClient(Options{Env: n.Env(), HostRun: n.Run})
	_, err := bare.Stage(ctx, img2.Ref)
	var cmdErr *CommandError
	if !errors.As(err, &cmdErr) || !strings.Contains(cmdErr.Stderr, "unauthorized") {
		t.Fatalf("stage without the pull secret: %v, want rpm-ostree's unauthorized", err)
	}
}

// TestPullSecretLinkReplacesAStaleOne: an old link (or file) is replaced
// atomically by the link to the merged secret once that exists.
func TestPullSecretLinkReplacesAStaleOne(t *testing.T) {
	root, run := t.TempDir(), t.TempDir()
	c := NewClient(Options{Root: root, HostRun: run})
	link := filepath.Join(run, "ostree", "auth.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(link, []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(root, InternalRegistryAuthFile)
	if err := os.MkdirAll(filepath.Dir(merged), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(merged, []byte(`{"auths":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.linkPullSecret(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(link); err != nil || got != InternalRegistryAuthFile {
		t.Fatalf("%s -> %q (%v), want %s", link, got, err, InternalRegistryAuthFile)
	}
	if entries, _ := os.ReadDir(filepath.Dir(link)); len(entries) != 1 {
		t.Errorf("left beside the link: %v", entries)
	}
}
