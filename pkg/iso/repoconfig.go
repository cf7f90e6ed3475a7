package iso

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// PerObjectFsyncKey is ostree's repo option (section [core]) that fsyncs
// every object as it is written instead of one syncfs at the end of a pull.
// That paces the writes, and makes the writer, not the kernel's flusher
// threads, submit them: only then do its I/O class and (on cgroup v1) its
// blkio cgroup apply to them.
const PerObjectFsyncKey = "per-object-fsync"

// RepoConfigPath is the config of the OS repository under a sysroot
// ("/sysroot" on a node, the double's sysroot in tests).
func RepoConfigPath(sysroot string) string {
	return filepath.Join(sysroot, "ostree", "repo", "config")
}

// SetINIKey returns content with key=value in section, replacing an
// existing assignment or adding one (and the section if missing), and the
// previous value (had reports whether there was one). Other lines are kept
// byte for byte.
func SetINIKey(content, section, key, value string) (out string, previous string, had bool) {
	lines := strings.Split(content, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	in, sectionEnd, found := false, -1, false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			if in {
				break
			}
			in = strings.TrimSpace(t[1:len(t)-1]) == section
			if in {
				sectionEnd = i + 1
			}
			continue
		}
		if !in {
			continue
		}
		if t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, ";") {
			sectionEnd = i + 1
		}
		k, v, ok := strings.Cut(t, "=")
		if ok && strings.TrimSpace(k) == key {
			previous, had, found = strings.TrimSpace(v), true, true
			lines[i] = key + "=" + value
			break
		}
	}
	if !found {
		if sectionEnd < 0 {
			lines = append(lines, "["+section+"]", key+"="+value)
		} else {
			lines = append(lines[:sectionEnd], append([]string{key + "=" + value}, lines[sectionEnd:]...)...)
		}
	}
	return strings.Join(lines, "\n") + "\n", previous, had
}

// RemoveINIKey returns content without key's assignment in section.
func RemoveINIKey(content, section, key string) string {
	lines := strings.Split(content, "\n")
	in := false
	out := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			in = strings.TrimSpace(t[1:len(t)-1]) == section
		} else if in {
			if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// RepoOptionChange remembers a repo option's previous state to restore it.
type RepoOptionChange struct {
	path, section, key string
	previous           string
	had, done          bool
}

// SetRepoOption sets [section] key=value in an ostree repo config file,
// atomically (write to a temp file, rename).
func SetRepoOption(ctx context.Context, configPath, section, key, value string) (*RepoOptionChange, error) {
	b, err := os.ReadFile(configPath)
	if err != nil {
		return nil, fmt.Errorf("read repo config: %w", err)
	}
	out, prev, had := SetINIKey(string(b), section, key, value)
	if err := writeAtomic(configPath, out); err != nil {
		return nil, err
	}
	klog.FromContext(ctx).Info("Repo option set", "config", configPath, "option", section+"."+key, "value", value)
	return &RepoOptionChange{path: configPath, section: section, key: key, previous: prev, had: had}, nil
}

// Restore puts the option back as it was. It is idempotent.
func (c *RepoOptionChange) Restore(ctx context.Context) error {
	if c == nil || c.done {
		return nil
	}
	if err := restoreRepoOption(ctx, c.path, c.section, c.key, c.had, c.previous); err != nil {
		return err
	}
	c.done = true
	return nil
}

// ReadRepoOption returns an option's value in a repo config, and whether it
// is set at all.
func ReadRepoOption(configPath, section, key string) (value string, had bool, err error) {
	b, err := os.ReadFile(configPath)
	if err != nil {
		return "", false, fmt.Errorf("read repo config: %w", err)
	}
	// Setting it to anything reports the assignment it replaced.
	_, value, had = SetINIKey(string(b), section, key, "")
	return value, had, nil
}

// restoreRepoOption sets an option back to its previous value, or removes
// it when it was not set.
func restoreRepoOption(ctx context.Context, path, section, key string, had bool, previous string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		// The repo is gone (a test's sysroot removed): no option to put back.
		klog.FromContext(ctx).Info("Repo config gone; nothing to restore", "config", path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read repo config: %w", err)
	}
	var out string
	if had {
		out, _, _ = SetINIKey(string(b), section, key, previous)
	} else {
		out = RemoveINIKey(string(b), section, key)
	}
	if out == string(b) {
		return nil
	}
	if err := writeAtomic(path, out); err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Repo option restored", "config", path, "option", section+"."+key)
	return nil
}

func writeAtomic(path, content string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return files.SyncDir(filepath.Dir(path))
}
