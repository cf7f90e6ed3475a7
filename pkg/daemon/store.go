package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// StateDir is where the daemon keeps its record, under the root prefix.
const StateDir = "/var/lib/tandem/daemon"

// Store keeps the record and the metrics timeline on disk, each written
// atomically (temporary file, fsync, rename, fsync of the directory).
type Store struct {
	Dir string
}

// NewStore returns the store under root.
func NewStore(root string) Store { return Store{Dir: filepath.Join(root, StateDir)} }

func (s Store) recordPath() string   { return filepath.Join(s.Dir, "record.json") }
func (s Store) timelinePath() string { return filepath.Join(s.Dir, "timeline.json") }

// BackupDir is where the files writer keeps the backups of the record.
func (s Store) BackupDir() string { return filepath.Join(s.Dir, "backup") }

// Load returns the record, or nil when there is none.
func (s Store) Load() (*Record, error) {
	var r Record
	found, err := readJSON(s.recordPath(), &r)
	if err != nil || !found {
		return nil, err
	}
	return &r, nil
}

// Save replaces the record.
func (s Store) Save(r *Record) error { return writeJSON(s.recordPath(), r) }

// Clear deletes the record (the backups are the writer's to drop).
func (s Store) Clear() error { return files.RemoveDurably(s.recordPath()) }

// Timeline holds when protocol steps happened, for the metrics only: no
// decision reads it, and losing it only loses a sample.
type Timeline struct {
	StagedAt         time.Time `json:"stagedAt,omitzero"`
	DrainRequestedAt time.Time `json:"drainRequestedAt,omitzero"`
	DrainedAt        time.Time `json:"drainedAt,omitzero"`
}

// LoadTimeline returns the timeline (zero when missing or unreadable).
func (s Store) LoadTimeline() Timeline {
	var t Timeline
	_, _ = readJSON(s.timelinePath(), &t)
	return t
}

// SaveTimeline replaces the timeline.
func (s Store) SaveTimeline(t Timeline) error { return writeJSON(s.timelinePath(), t) }

func readJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("parsing %s: %w", path, err)
	}
	return true, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return files.WriteFileAtomic(path, append(b, '\n'), 0o600, -1, -1)
}
