//go:build integration

package daemon_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/coreos/go-systemd/v22/unit"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	"github.com/vincent-petithory/dataurl"
)

// judgeFiles is the suite's file oracle: what a node's root must hold
// after it applied cfg over from (nil: an install), written from the
// Ignition v3 spec and systemd's enablement rules alone, never from the
// daemon's own files.Plan or Writer.Verify (which the daemon writes and
// checks with: they could agree with each other and both be wrong).
//
// The rules, read from coreos/ignition v2.20.0 docs/configuration-v3_5.md
// (storage.files: "contents.source" a data URL, "compression" gzip or
// empty, "mode" defaulting to 0644; systemd.units: "contents" at
// /etc/systemd/system/<name>, "dropins" at <name>.d/<dropin>, "mask" a
// link to /dev/null, "enabled" as `systemctl enable` does it) and systemd
// v252 man systemd.unit ([Install] WantedBy= and RequiredBy= make links in
// <target>.wants/ and <target>.requires/):
//   - every file of cfg holds exactly its decoded contents, with its mode;
//   - every unit and drop-in of cfg holds its contents; a masked unit is a
//     link to /dev/null; an enabled unit is linked from each of its
//     [Install] targets, a disabled one from none;
//   - every file, unit and drop-in of from that cfg does not have is gone.
//
// It judges what the suite's configs use; any other section (directories,
// links, remote sources, users) is reported as not judged rather than
// passed.
func judgeFiles(root string, from, cfg *ign3types.Config) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	host := func(p string) string { return filepath.Join(root, p) }
	if n := len(cfg.Storage.Directories) + len(cfg.Storage.Links) + len(cfg.Passwd.Users) + len(cfg.Passwd.Groups); n > 0 {
		fail("the file oracle does not judge directories, links, users or groups (%d in the config)", n)
	}
	wanted := map[string]bool{}
	for _, f := range cfg.Storage.Files {
		wanted[f.Path] = true
		want, err := oracleContents(f)
		if err != nil {
			fail("%s: %v", f.Path, err)
			continue
		}
		mode := os.FileMode(0o644)
		if f.Mode != nil {
			mode = os.FileMode(*f.Mode)
		}
		judgeRegular(host(f.Path), f.Path, want, mode, fail)
	}
	const units = "/etc/systemd/system"
	for _, u := range cfg.Systemd.Units {
		p := path.Join(units, u.Name)
		wanted[p] = true
		masked := u.Mask != nil && *u.Mask
		switch {
		case masked:
			if t, err := os.Readlink(host(p)); err != nil || t != "/dev/null" {
				fail("%s: masked, want a link to /dev/null, have %q (%v)", p, t, err)
			}
		case u.Contents != nil:
			judgeRegular(host(p), p, []byte(*u.Contents), 0o644, fail)
		}
		for _, d := range u.Dropins {
			dp := path.Join(units, u.Name+".d", d.Name)
			wanted[dp] = true
			if d.Contents != nil {
				judgeRegular(host(dp), dp, []byte(*d.Contents), 0o644, fail)
			}
		}
		if u.Enabled == nil || masked {
			continue
		}
		if u.Contents == nil {
			fail("%s: enabled without contents: the oracle does not read vendor units", p)
			continue
		}
		targets, err := oracleInstallTargets(*u.Contents)
		if err != nil {
			fail("%s: %v", p, err)
			continue
		}
		for _, dir := range targets {
			link := path.Join(units, dir, u.Name)
			t, err := os.Readlink(host(link))
			switch {
			case *u.Enabled && (err != nil || t != p):
				fail("%s: enabled, want a link to %s, have %q (%v)", link, p, t, err)
			case !*u.Enabled && err == nil:
				fail("%s: disabled, but the link to %s is there", link, t)
			}
			if *u.Enabled {
				wanted[link] = true
			}
		}
	}
	if from != nil {
		var had []string
		for _, f := range from.Storage.Files {
			had = append(had, f.Path)
		}
		for _, u := range from.Systemd.Units {
			had = append(had, path.Join(units, u.Name))
			for _, d := range u.Dropins {
				had = append(had, path.Join(units, u.Name+".d", d.Name))
			}
		}
		for _, p := range had {
			if wanted[p] {
				continue
			}
			if _, err := os.Lstat(host(p)); !os.IsNotExist(err) {
				fail("%s: the previous config's, not in the new one, still there (%v)", p, err)
			}
		}
	}
	return bad
}

// judgeRegular checks that hostPath is a regular file with want and mode.
func judgeRegular(hostPath, p string, want []byte, mode os.FileMode, fail func(string, ...any)) {
	st, err := os.Lstat(hostPath)
	if err != nil {
		fail("%s: %v", p, err)
		return
	}
	if !st.Mode().IsRegular() {
		fail("%s: want a regular file, have %v", p, st.Mode())
		return
	}
	if st.Mode().Perm() != mode.Perm() {
		fail("%s: mode %v, want %v", p, st.Mode().Perm(), mode.Perm())
	}
	have, err := os.ReadFile(hostPath)
	switch {
	case err != nil:
		fail("%s: %v", p, err)
	case !bytes.Equal(have, want):
		fail("%s: %d bytes differ from the config's %d (a mix or a torn write)", p, len(have), len(want))
	}
}

// oracleContents decodes a file's contents with the data URL library
// Ignition itself uses (vincent-petithory/dataurl), then gzip if asked.
func oracleContents(f ign3types.File) ([]byte, error) {
	if f.Contents.Source == nil {
		return []byte{}, nil
	}
	src := *f.Contents.Source
	if !strings.HasPrefix(src, "data:") {
		return nil, fmt.Errorf("the oracle judges data URLs only, not %.20q", src)
	}
	u, err := dataurl.DecodeString(src)
	if err != nil {
		return nil, fmt.Errorf("decoding the source: %w", err)
	}
	if f.Contents.Compression == nil || *f.Contents.Compression == "" {
		return u.Data, nil
	}
	if *f.Contents.Compression != "gzip" {
		return nil, fmt.Errorf("compression %q", *f.Contents.Compression)
	}
	zr, err := gzip.NewReader(bytes.NewReader(u.Data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// oracleInstallTargets lists the <target>.wants and <target>.requires
// directories of a unit's [Install] section.
func oracleInstallTargets(contents string) ([]string, error) {
	opts, err := unit.DeserializeOptions(strings.NewReader(contents))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range opts {
		if o.Section != "Install" {
			continue
		}
		suffix := map[string]string{"WantedBy": ".wants", "RequiredBy": ".requires"}[o.Name]
		if suffix == "" {
			continue
		}
		for _, t := range strings.Fields(o.Value) {
			out = append(out, t+suffix)
		}
	}
	return out, nil
}

// judgeWhole is the oracle right after a power loss, before the daemon
// runs again: every config file and unit of the configs in play (the
// node's install config and each config granted since) holds exactly one
// config's version of it, or is absent where one of them has none. A
// torn, empty or half-synced file, which the daemon's own recovery could
// only paper over later, fails here with its path. Across files the node
// may be between two configs (the update's record rolls it on or back).
func judgeWhole(root string, cfgs []*ign3types.Config) []string {
	type version struct {
		data []byte
		err  error
	}
	versions := map[string][]version{}
	var order []string
	add := func(p string, data []byte, err error) {
		if _, seen := versions[p]; !seen {
			order = append(order, p)
		}
		versions[p] = append(versions[p], version{data, err})
	}
	for _, c := range cfgs {
		for _, f := range c.Storage.Files {
			data, err := oracleContents(f)
			add(f.Path, data, err)
		}
		for _, u := range c.Systemd.Units {
			if u.Contents != nil && (u.Mask == nil || !*u.Mask) {
				add(path.Join("/etc/systemd/system", u.Name), []byte(*u.Contents), nil)
			}
		}
	}
	var bad []string
	for _, p := range order {
		vs := versions[p]
		have, err := os.ReadFile(filepath.Join(root, p))
		if os.IsNotExist(err) {
			if len(vs) < len(cfgs) {
				continue // a config without it: absent is that config's state
			}
			bad = append(bad, fmt.Sprintf("%s: missing, though every config in play has it", p))
			continue
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		whole := false
		var sizes []string
		for _, v := range vs {
			if v.err != nil {
				bad = append(bad, fmt.Sprintf("%s: the oracle cannot decode a config's version: %v", p, v.err))
			}
			whole = whole || bytes.Equal(have, v.data)
			sizes = append(sizes, fmt.Sprint(len(v.data)))
		}
		if !whole {
			bad = append(bad, fmt.Sprintf("%s: %d bytes after the power loss, none of the configs' versions (%s bytes): torn or unsynced",
				p, len(have), strings.Join(sizes, ", ")))
		}
	}
	return bad
}
