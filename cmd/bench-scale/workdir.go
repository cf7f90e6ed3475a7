package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// workDirMarker names the file bench-scale leaves in its --dir, so that a
// later run knows the directory is its own to clear.
const workDirMarker = ".tandem-bench-scale"

// prepareWorkDir gives the run an empty --dir. A directory an earlier run
// left (killed before its cleanup, or kept with --keep) is cleared: its
// node roots hold each simulated node's on-disk config, and a daemon that
// found the last run's currentconfig naming the new config would adopt it
// and report the disk Degraded. A non-empty directory without the marker is
// someone else's and is refused, never removed.
func prepareWorkDir(dir string) (cleared bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, fmt.Errorf("reading --dir: %w", err)
	case len(entries) == 0:
	default:
		if _, err := os.Stat(filepath.Join(dir, workDirMarker)); err != nil {
			return false, fmt.Errorf("--dir %s is not empty and was not made by bench-scale (no %s); remove it or pass another --dir", dir, workDirMarker)
		}
		if err := os.RemoveAll(dir); err != nil {
			return false, fmt.Errorf("clearing the work directory an earlier run left: %w", err)
		}
		cleared = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return cleared, fmt.Errorf("creating --dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, workDirMarker), nil, 0o644); err != nil {
		return cleared, fmt.Errorf("marking --dir as bench-scale's: %w", err)
	}
	return cleared, nil
}
