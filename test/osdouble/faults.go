package osdouble

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Conditions of the machine around rpm-ostree that tests set up: systemd
// inhibitor locks and a container image rpm-ostree cannot query.

// Inhibitor is a systemd-logind inhibitor lock (what ListInhibitors returns).
type Inhibitor struct {
	What string `json:"what"` // e.g. "shutdown", "sleep:shutdown"
	Who  string `json:"who"`
	Why  string `json:"why"`
	Mode string `json:"mode"` // "block" or "delay"
}

// Inhibitors live in the run dir: their holders die with the machine.
func (l layout) inhibitorsFile() string { return filepath.Join(l.run, "osdouble", "inhibitors.json") }

// faults live in the sysroot: they are properties of the node's repo.
func (l layout) faultsFile() string {
	return filepath.Join(l.sysroot, "ostree", "osdouble-faults.json")
}

// faults are deliberate misbehaviours of the node.
type faults struct {
	// NoImageDigest: rpm-ostree cannot query the container image state of
	// its deployments (query_container_image_commit fails), so status has
	// no container-image-reference-digest (upstream issue #4185, made
	// non-fatal in rpmostreed-deployment-utils.cxx) and, on >= 2025.7,
	// finalize-deployment falls back to the base checksum.
	NoImageDigest bool `json:"noImageDigest,omitempty"`
}

// Inhibit adds a systemd inhibitor lock on the node until its next boot.
func (n Node) Inhibit(i Inhibitor) error {
	l := layout{sysroot: n.Sysroot, run: n.Run}
	var list []Inhibitor
	if _, err := readJSON(l.inhibitorsFile(), &list); err != nil {
		return err
	}
	return writeJSONAtomic(l.inhibitorsFile(), append(list, i), false)
}

// SetNoImageDigest makes rpm-ostree unable to query the node's container
// images (see faults.NoImageDigest), or able again.
func (n Node) SetNoImageDigest(on bool) error {
	l := layout{sysroot: n.Sysroot}
	return writeJSONAtomic(l.faultsFile(), faults{NoImageDigest: on}, false)
}

func (n *node) noImageDigest() bool {
	var f faults
	if _, err := readJSON(n.l.faultsFile(), &f); err != nil {
		return false
	}
	return f.NoImageDigest
}

// checkInhibitors is rpmostreed-utils.cxx check_sd_inhibitor_locks: only
// shutdown inhibitors in block mode stop a reboot.
func (n *node) checkInhibitors() error {
	var list []Inhibitor
	if _, err := readJSON(n.l.inhibitorsFile(), &list); err != nil {
		return fmt.Errorf("Checking systemd inhibitor locks: %w", err)
	}
	var blocking []Inhibitor
	for _, i := range list {
		if strings.Contains(i.What, "shutdown") && i.Mode == "block" {
			blocking = append(blocking, i)
		}
	}
	if len(blocking) == 0 {
		return nil
	}
	msg := fmt.Sprintf("Reboot blocked by a systemd inhibitor lock in `block` mode\nHeld by: %s\nReason: %s", blocking[0].Who, blocking[0].Why)
	if len(blocking) > 1 {
		msg += fmt.Sprintf("\nand %d other blocking inhibitor lock(s)\nUse `systemd-inhibit --list` to see details", len(blocking)-1)
	}
	return errors.New(msg)
}
