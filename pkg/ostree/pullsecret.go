package ostree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"
)

// rpm-ostree's pulls authenticate with one file only: ostree-ext reads
// /run/ostree/auth.json, then /etc/ostree/auth.json (then, from rpm-ostree
// 2024.6, /usr/lib/ostree/auth.json), never the container tools' own auth
// files (rpm-ostree docs/container.md "Registry authentication";
// ostree-ext globals.rs). The MCO gives it the cluster's pull secret by
// linking /run/ostree/auth.json to it, when the daemon starts and again
// before every rebase, since /run is emptied at each boot and the secret
// may have been laid since (openshift/machine-config-operator release-4.21
// pkg/daemon/image_manager_helper.go useMergedPullSecrets and
// linkAuthFile, pkg/daemon/rpm-ostree.go Initialize and RebaseLayered).
const (
	// OstreeAuthFile is where rpm-ostree looks first.
	OstreeAuthFile = "/run/ostree/auth.json"
	// KubeletAuthFile is the cluster's pull secret, which every rendered
	// MachineConfig lays down.
	KubeletAuthFile = "/var/lib/kubelet/config.json"
	// InternalRegistryAuthFile is the merged internal-registry and global
	// pull secret the MCO writes; when it exists and
	// is valid JSON it is linked instead.
	InternalRegistryAuthFile = "/etc/mco/internal-registry-pull-secret.json"
)

// pulls are the verbs whose transaction pulls an image.
var pulls = map[string]bool{"rebase": true, "deploy": true, "upgrade": true}

// pullSecretTarget is the file the MCO links rpm-ostree's auth file to,
// given what the host holds: the merged secret when it is there and valid
// JSON, else the kubelet's pull secret (useMergedPullSecrets). read reads a
// host path.
func pullSecretTarget(read func(string) ([]byte, error)) (string, error) {
	b, err := read(InternalRegistryAuthFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return KubeletAuthFile, nil
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", InternalRegistryAuthFile, err)
	case !json.Valid(b):
		return KubeletAuthFile, nil
	}
	return InternalRegistryAuthFile, nil
}

// LinkPullSecret links rpm-ostree's auth file to the pull secret now, as
// the MCO does when its daemon starts (RpmOstreeClient.Initialize); calls
// that pull do it again. A no-op without Options.Root.
func (c *Client) LinkPullSecret(ctx context.Context) error { return c.linkPullSecret(ctx) }

// linkPullSecret makes HostRun's ostree/auth.json a symlink to the pull
// secret (a host path: rpm-ostree on the host resolves it), replacing what
// was there atomically. It is a no-op without Options.Root.
func (c *Client) linkPullSecret(ctx context.Context) error {
	if c.opts.Root == "" {
		return nil
	}
	target, err := pullSecretTarget(func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(c.opts.Root, p)) })
	if err != nil {
		return err
	}
	link := filepath.Join(c.opts.HostRun, strings.TrimPrefix(OstreeAuthFile, "/run/"))
	if cur, err := os.Readlink(link); err == nil && cur == target {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return fmt.Errorf("linking rpm-ostree's auth file: %w", err)
	}
	tmp := link + ".tandem-tmp"
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("linking rpm-ostree's auth file: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("linking rpm-ostree's auth file: %w", err)
	}
	klog.FromContext(ctx).Info("Linked rpm-ostree's auth file to the pull secret", "authFile", OstreeAuthFile, "pullSecret", target)
	return nil
}
