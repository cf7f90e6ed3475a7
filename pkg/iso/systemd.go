package iso

import (
	"context"
	"fmt"
	"math"

	sdbus "github.com/coreos/go-systemd/v22/dbus"
	godbus "github.com/godbus/dbus/v5"
	"k8s.io/klog/v2"
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
