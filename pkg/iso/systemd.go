package iso

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"

	sdbus "github.com/coreos/go-systemd/v22/dbus"
	godbus "github.com/godbus/dbus/v5"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/templates"
)

// RPMOstreedUnit is the service that does the staging writes on a node: the
// rpm-ostree CLI only asks it over D-Bus, so in production the knobs are
// this unit's properties, not the CLI process's.
const RPMOstreedUnit = "rpm-ostreed.service"

// weightUnset is systemd's "IOWeight= not set" (CGROUP_WEIGHT_INVALID).
const weightUnset = math.MaxUint64

// ioBandwidth is one entry of systemd's IO*BandwidthMax= (D-Bus a(st)).
type ioBandwidth struct {
	Path      string
	Bandwidth uint64
}

// UnitIOProperties returns the runtime unit properties that give a unit a
// write limit on a disk (0: none) and an I/O weight (0: leave as is).
func UnitIOProperties(devPath string, writeBps uint64, weight uint64) []sdbus.Property {
	limits := []ioBandwidth{}
	if writeBps > 0 {
		limits = append(limits, ioBandwidth{Path: devPath, Bandwidth: writeBps})
	}
	// An empty array resets IOWriteBandwidthMax= to no limit.
	props := []sdbus.Property{{Name: "IOWriteBandwidthMax", Value: godbus.MakeVariant(limits)}}
	if weight > 0 {
		props = append(props, sdbus.Property{Name: "IOWeight", Value: godbus.MakeVariant(weight)})
	}
	return props
}

// UnitIO sets I/O properties of a running systemd unit at runtime (they
// live under /run and vanish at reboot) and puts them back on Close.
type UnitIO struct {
	conn       *sdbus.Conn
	unit       string
	devPath    string
	prevWeight uint64
}

// NewUnitIO connects to the system bus and remembers the unit's IOWeight.
func NewUnitIO(ctx context.Context, unit, devPath string) (*UnitIO, error) {
	conn, err := sdbus.NewSystemConnectionContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to systemd: %w", err)
	}
	u := &UnitIO{conn: conn, unit: unit, devPath: devPath, prevWeight: weightUnset}
	if p, err := conn.GetUnitTypePropertyContext(ctx, unit, "Service", "IOWeight"); err == nil {
		if w, ok := p.Value.Value().(uint64); ok {
			u.prevWeight = w
		}
	}
	return u, nil
}

// Apply sets the write limit and weight.
func (u *UnitIO) Apply(ctx context.Context, writeBps uint64, weight uint64) error {
	if err := u.conn.SetUnitPropertiesContext(ctx, u.unit, true, UnitIOProperties(u.devPath, writeBps, weight)...); err != nil {
		return fmt.Errorf("set I/O properties of %s: %w", u.unit, err)
	}
	klog.FromContext(ctx).V(2).Info("Unit I/O properties set", "unit", u.unit, "device", u.devPath, "writeBps", writeBps, "weight", weight)
	return nil
}

// SetWriteLimit is the governor's Limiter.
func (u *UnitIO) SetWriteLimit(ctx context.Context, bps uint64) error {
	return u.Apply(ctx, bps, 0)
}

// Close lifts the limit, restores the weight and disconnects.
func (u *UnitIO) Close(ctx context.Context) error {
	props := UnitIOProperties(u.devPath, 0, 0)
	props = append(props, sdbus.Property{Name: "IOWeight", Value: godbus.MakeVariant(u.prevWeight)})
	err := u.conn.SetUnitPropertiesContext(ctx, u.unit, true, props...)
	u.conn.Close()
	if err != nil {
		return fmt.Errorf("restore I/O properties of %s: %w", u.unit, err)
	}
	return nil
}

// UnitDropInDir is where tandem lays its drop-ins for a unit: systemd's
// runtime unit directory. A reboot empties it (the daemon lays them again
// when it starts), a drop-in of the same name in /etc/systemd/system
// overrides it, and a node given back to the MCO keeps none of them past its
// next reboot.
func UnitDropInDir(root, unit string) string {
	return filepath.Join(root, "run", "systemd", "system", unit+".d")
}

// UnitDropIns returns tandem's drop-ins (templates/rpm-ostreed.service.d) for
// the staging unit under policy p: the CPU and I/O priority one always, the
// idle I/O class for the policies that have one.
func UnitDropIns(p *Policy) (map[string][]byte, error) {
	names := []string{templates.StagingIODropIn}
	if p.Knobs().IOPrio != nil {
		names = append(names, templates.IdleDropIn)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := templates.FS.ReadFile(path.Join("rpm-ostreed.service.d", n))
		if err != nil {
			return nil, fmt.Errorf("drop-in template %s: %w", n, err)
		}
		out[n] = b
	}
	return out, nil
}

// LayUnitDropIns makes the unit's tandem drop-ins under root those of
// policy p: missing or changed ones are written (atomically, synced),
// tandem drop-ins p does not use are removed. When anything changed it
// reloads systemd over D-Bus (Reload, as `systemctl daemon-reload`) and,
// with restart, restarts the unit if it is running (TryRestartUnit): the
// drop-ins' properties (Nice=, IOSchedulingClass=) are exec properties,
// which apply from a unit's next start only. The daemon restarts it when it
// starts, before it stages anything; a session does not, so it never cancels
// a running transaction. It reports whether anything changed.
func LayUnitDropIns(ctx context.Context, root, unit string, p *Policy, restart bool) (bool, error) {
	want, err := UnitDropIns(p)
	if err != nil {
		return false, err
	}
	dir := UnitDropInDir(root, unit)
	changed, err := syncDropIns(dir, want)
	if err != nil {
		return changed, err
	}
	if !changed {
		return false, nil
	}
	log := klog.FromContext(ctx)
	log.Info("Unit drop-ins laid", "unit", unit, "dir", dir, "policy", p.Name())
	conn, err := sdbus.NewSystemConnectionContext(ctx)
	if err != nil {
		return true, fmt.Errorf("connect to systemd: %w", err)
	}
	defer conn.Close()
	if err := conn.ReloadContext(ctx); err != nil {
		return true, fmt.Errorf("reloading systemd after laying drop-ins for %s: %w", unit, err)
	}
	if !restart {
		return true, nil
	}
	done := make(chan string, 1)
	if _, err := conn.TryRestartUnitContext(ctx, unit, "replace", done); err != nil {
		return true, fmt.Errorf("restarting %s for its drop-ins: %w", unit, err)
	}
	select {
	case res := <-done:
		if res != "done" {
			return true, fmt.Errorf("restarting %s for its drop-ins: job %s", unit, res)
		}
	case <-ctx.Done():
		return true, ctx.Err()
	}
	log.Info("Unit restarted for its drop-ins", "unit", unit)
	return true, nil
}

// syncDropIns makes tandem's drop-ins in dir exactly want (other files are
// left alone) and reports whether it changed anything.
func syncDropIns(dir string, want map[string][]byte) (bool, error) {
	changed := false
	for _, n := range []string{templates.StagingIODropIn, templates.IdleDropIn} {
		dst := filepath.Join(dir, n)
		have, rerr := os.ReadFile(dst)
		content, wanted := want[n]
		switch {
		case wanted && (rerr != nil || !bytes.Equal(have, content)):
			if err := files.WriteFileAtomic(dst, content, 0o644, -1, -1); err != nil {
				return changed, fmt.Errorf("laying drop-in %s: %w", dst, err)
			}
			changed = true
		case !wanted && rerr == nil:
			if err := files.RemoveDurably(dst); err != nil {
				return changed, err
			}
			changed = true
		}
	}
	return changed, nil
}
