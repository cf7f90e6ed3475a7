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

// ReloadUnit reloads unit through systemd and waits for the job (the MCO's
// `systemctl reload`).
func (Systemd) ReloadUnit(ctx context.Context, unit string) error {
	return runUnitJob(ctx, "reloading", unit, func(c *sddbus.Conn, ch chan<- string) (int, error) {
		return c.ReloadUnitContext(ctx, unit, "replace", ch)
	})
}

// RestartUnit restarts unit through systemd and waits for the job.
func (Systemd) RestartUnit(ctx context.Context, unit string) error {
	return runUnitJob(ctx, "restarting", unit, func(c *sddbus.Conn, ch chan<- string) (int, error) {
		return c.RestartUnitContext(ctx, unit, "replace", ch)
	})
}

// DaemonReload is `systemctl daemon-reload` over D-Bus (Manager.Reload).
func (Systemd) DaemonReload(ctx context.Context) error {
	conn, err := sddbus.NewSystemConnectionContext(ctx)
	if err != nil {
		return fmt.Errorf("connecting to systemd: %w", err)
	}
	defer conn.Close()
	if err := conn.ReloadContext(ctx); err != nil {
		return fmt.Errorf("daemon-reload: %w", err)
	}
	return nil
}

func runUnitJob(ctx context.Context, verb, unit string, start func(*sddbus.Conn, chan<- string) (int, error)) error {
	conn, err := sddbus.NewSystemConnectionContext(ctx)
	if err != nil {
		return fmt.Errorf("connecting to systemd: %w", err)
	}
	defer conn.Close()
	done := make(chan string, 1)
	if _, err := start(conn, done); err != nil {
		return fmt.Errorf("%s %s: %w", verb, unit, err)
	}
	select {
	case result := <-done:
		if result != "done" {
			return fmt.Errorf("%s %s: job %s", verb, unit, result)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// UnitActionsLog is the file, beside the reboot file, where the harness host
// records the unit actions a real host would carry out through systemd, one
// line each ("<time> reload crio.service"), so tests count them from the
// world.
func (h Harness) UnitActionsLog() string {
	return filepath.Join(filepath.Dir(h.RebootFile), "unit-actions.log")
}

func (h Harness) logUnitAction(ctx context.Context, what string) error {
	if h.RebootFile == "" {
		return fmt.Errorf("no reboot file configured for the harness host")
	}
	f, err := os.OpenFile(h.UnitActionsLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("recording %s: %w", what, err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), what); err != nil {
		return fmt.Errorf("recording %s: %w", what, err)
	}
	klog.FromContext(ctx).V(2).Info("simulated node: unit action", "action", what)
	return f.Sync()
}

// ReloadUnit records the reload (a simulated node has no systemd).
func (h Harness) ReloadUnit(ctx context.Context, unit string) error {
	return h.logUnitAction(ctx, "reload "+unit)
}

// RestartUnit records the restart.
func (h Harness) RestartUnit(ctx context.Context, unit string) error {
	return h.logUnitAction(ctx, "restart "+unit)
}

// DaemonReload records the daemon-reload.
func (h Harness) DaemonReload(ctx context.Context) error {
	return h.logUnitAction(ctx, "daemon-reload")
}
