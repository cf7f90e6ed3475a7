// Package host performs the daemon's host actions: stopping kubelet and
// rebooting. Systemd talks to systemd over D-Bus; Harness drives a test
// harness's simulated reboot.
package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	sddbus "github.com/coreos/go-systemd/v22/dbus"
	"k8s.io/klog/v2"
)

// KubeletUnit is the systemd unit stopped before a reboot.
const KubeletUnit = "kubelet.service"

// Systemd performs host actions through systemd's D-Bus API.
type Systemd struct{}

// StopKubelet stops kubelet.service and waits for the job to finish, so
// no pod restarts between the drain and the reboot.
func (Systemd) StopKubelet(ctx context.Context) error {
	conn, err := sddbus.NewSystemConnectionContext(ctx)
	if err != nil {
		return fmt.Errorf("connecting to systemd: %w", err)
	}
	defer conn.Close()
	done := make(chan string, 1)
	if _, err := conn.StopUnitContext(ctx, KubeletUnit, "replace", done); err != nil {
		return fmt.Errorf("stopping %s: %w", KubeletUnit, err)
	}
	select {
	case result := <-done:
		if result != "done" {
			return fmt.Errorf("stopping %s: job %s", KubeletUnit, result)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reboot asks systemd to reboot (reboot.target, irreversibly: a later job
// must not cancel it). The call returns once the job is queued.
func (Systemd) Reboot(ctx context.Context, reason string) error {
	conn, err := sddbus.NewSystemConnectionContext(ctx)
	if err != nil {
		return fmt.Errorf("connecting to systemd: %w", err)
	}
	defer conn.Close()
	klog.FromContext(ctx).Info("rebooting", "reason", reason)
	if _, err := conn.StartUnitContext(ctx, "reboot.target", "replace-irreversibly", nil); err != nil {
		return fmt.Errorf("starting reboot.target: %w", err)
	}
	return nil
}

// Harness performs host actions for a simulated node: there is no kubelet
// to stop, and a reboot is asked for by writing RebootFile, the file the
// rpm-ostree double's finalize-deployment also writes; the harness watching
// it kills the daemon, reboots the simulated OS and starts the daemon again.
type Harness struct {
	RebootFile string
}

// StopKubelet has nothing to stop on a simulated node.
func (Harness) StopKubelet(ctx context.Context) error {
	klog.FromContext(ctx).V(2).Info("simulated node: no kubelet to stop")
	return nil
}

// Reboot writes the reboot request file.
func (h Harness) Reboot(ctx context.Context, reason string) error {
	if h.RebootFile == "" {
		return fmt.Errorf("no reboot file configured for the harness host")
	}
	if err := os.MkdirAll(filepath.Dir(h.RebootFile), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(h.RebootFile), err)
	}
	msg := fmt.Sprintf("%s reboot requested by machine-config-daemon: %s\n", time.Now().UTC().Format(time.RFC3339Nano), reason)
	if err := os.WriteFile(h.RebootFile, []byte(msg), 0o644); err != nil {
		return fmt.Errorf("requesting reboot: %w", err)
	}
	return nil
}
