package iso

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// DefaultStateDir is where a session keeps its record of the knobs it
// changed when Options.StateDir is empty: the daemon's state directory.
const DefaultStateDir = "/var/lib/tandem/daemon/iso"

// recordName is the record's file in the state directory.
const recordName = "knobs.json"

// Entry kinds: how a recorded knob is put back.
const (
	// kindFile: a sysfs (or any) file; Original is written back to Path.
	kindFile = "file"
	// kindRepoOption: an option of an ostree repo config; Had/Original
	// tell whether and how it was set.
	kindRepoOption = "repo-option"
	// kindCgroup: a cgroup the session made; it is emptied and removed.
	kindCgroup = "cgroup"
	// kindUnitIO: runtime I/O properties of a systemd unit; the write
	// limit is lifted and IOWeight set back to Weight.
	kindUnitIO = "unit-io"
	// kindProcessCgroup: a running process (PID, StartTime) moved into the
	// staging cgroup; it goes back to Path.
	kindProcessCgroup = "process-cgroup"
	// kindProcessIOPrio: a running process's threads given an I/O class;
	// they get Original (ioprio_get's value) back.
	kindProcessIOPrio = "process-ioprio"
)

// Entry is one knob a session changed, with what it was before: enough to
// put it back from another process after a crash.
type Entry struct {
	Kind string `json:"kind"`
	// Lever names the lever or policy knob the entry belongs to (logs).
	Lever string `json:"lever"`
	Path  string `json:"path"`
	// Original is the value to write back (kindFile), or the option's
	// previous value (kindRepoOption).
	Original string `json:"original,omitempty"`
	// Section, Key and Had describe a repo option.
	Section string `json:"section,omitempty"`
	Key     string `json:"key,omitempty"`
	Had     bool   `json:"had,omitempty"`
	// Parent is a cgroup parent the session made (removed when empty).
	Parent string `json:"parent,omitempty"`
	// PID and StartTime (/proc/<pid>/stat field 22) name a process; a pid
	// reused by another process is left alone.
	PID       int    `json:"pid,omitempty"`
	StartTime string `json:"startTime,omitempty"`
	// Unit, Device and Weight describe a unit's I/O properties.
	Unit   string `json:"unit,omitempty"`
	Device string `json:"device,omitempty"`
	Weight uint64 `json:"weight,omitempty"`
	// Volatile knobs (sysfs, cgroups, runtime unit properties) do not
	// survive a reboot: after one, the kernel already put them back, and
	// writing the old value could undo what the new boot configured.
	Volatile bool `json:"volatile"`
}

// Record is the durable list of the knobs a session changed. It is written
// (and fsynced) before each change, so a crash at any point leaves a record
// that names every knob that might be changed.
type Record struct {
	PID     int       `json:"pid"`
	Policy  string    `json:"policy"`
	BootID  string    `json:"bootID"`
	Started time.Time `json:"started"`
	Entries []Entry   `json:"entries"`
}

// RecordPath is the record's file under a state directory.
func RecordPath(stateDir string) string { return filepath.Join(stateDir, recordName) }

// loadRecord reads a record; nil when there is none.
func loadRecord(path string) (*Record, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read I/O knob record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("I/O knob record %s is corrupt: %w", path, err)
	}
	return &r, nil
}

// saveRecord writes the record durably (temporary file, fsync, rename,
// fsync of the directory).
func saveRecord(path string, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := files.WriteFileAtomic(path, append(b, '\n'), 0o600, -1, -1); err != nil {
		return fmt.Errorf("write I/O knob record: %w", err)
	}
	return nil
}

// removeRecord deletes the record durably.
func removeRecord(path string) error {
	if err := files.RemoveDurably(path); err != nil {
		return fmt.Errorf("remove I/O knob record: %w", err)
	}
	return nil
}

// currentBootID identifies the running kernel's boot. It is the real
// kernel's, not a simulated node's: sysfs knobs live as long as the kernel.
func currentBootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
