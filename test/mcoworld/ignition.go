package mcoworld

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coreos/go-systemd/v22/unit"
	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
)

// LayIgnition does to the node root what Ignition's files stage and the
// first boot's systemd preset do with an Ignition v3 config
// (coreos/ignition v2.24.0, internal/exec/stages/files; docs/operator-notes.md
// for units): directories, files (data: URLs, gzip), links; units' contents
// in /etc/systemd/system, drop-ins in <unit>.d, a masked unit linked to
// /dev/null, an enabled unit linked into the .wants/.requires of its
// [Install] section (what `systemctl preset` does with Ignition's
// 20-ignition.preset at the first boot); users' SSH keys in
// /home/<user>/.ssh/authorized_keys.d/ignition. It is the harness playing
// Ignition, the machine's installer, so it shares nothing with the
// daemon's file code that the daemon's on-disk check then judges.
func LayIgnition(root string, raw []byte) error {
	cfg, _, err := ign3.ParseCompatibleVersion(raw)
	if err != nil {
		return fmt.Errorf("parsing the Ignition config: %w", err)
	}
	ids := idsOf(root)
	for _, d := range cfg.Storage.Directories {
		if err := os.MkdirAll(filepath.Join(root, d.Path), modeOr(d.Mode, 0o755)); err != nil {
			return err
		}
		if err := chownNode(root, d.Path, d.User, d.Group, ids); err != nil {
			return err
		}
	}
	for _, f := range cfg.Storage.Files {
		data, err := ignitionContents(f.Contents)
		if err != nil {
			return fmt.Errorf("file %s: %w", f.Path, err)
		}
		p := filepath.Join(root, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		_ = os.Remove(p)
		if err := os.WriteFile(p, data, modeOr(f.Mode, 0o644)); err != nil {
			return err
		}
		if err := os.Chmod(p, modeOr(f.Mode, 0o644)); err != nil {
			return err
		}
		if err := chownNode(root, f.Path, f.User, f.Group, ids); err != nil {
			return err
		}
	}
	for _, l := range cfg.Storage.Links {
		p := filepath.Join(root, l.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		_ = os.Remove(p)
		if l.Hard != nil && *l.Hard {
			if err := os.Link(filepath.Join(root, *l.Target), p); err != nil {
				return err
			}
			continue
		}
		if err := os.Symlink(*l.Target, p); err != nil {
			return err
		}
	}
	for _, u := range cfg.Systemd.Units {
		if err := layUnit(root, u); err != nil {
			return fmt.Errorf("unit %s: %w", u.Name, err)
		}
	}
	for _, u := range cfg.Passwd.Users {
		if len(u.SSHAuthorizedKeys) == 0 {
			continue
		}
		home := filepath.Join("/home", u.Name)
		if u.HomeDir != nil {
			home = *u.HomeDir
		}
		var keys strings.Builder
		for _, k := range u.SSHAuthorizedKeys {
			keys.WriteString(string(k) + "\n")
		}
		rel := filepath.Join(home, ".ssh", "authorized_keys.d", "ignition")
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(keys.String()), 0o600); err != nil {
			return err
		}
		name := u.Name
		if err := chownNode(root, rel, ign3types.NodeUser{Name: &name}, ign3types.NodeGroup{Name: &name}, ids); err != nil {
			return err
		}
	}
	return nil
}

const unitDir = "/etc/systemd/system"

func layUnit(root string, u ign3types.Unit) error {
	unitPath := filepath.Join(unitDir, u.Name)
	if u.Mask != nil && *u.Mask {
		_ = os.Remove(filepath.Join(root, unitPath))
		if err := os.MkdirAll(filepath.Join(root, unitDir), 0o755); err != nil {
			return err
		}
		return os.Symlink("/dev/null", filepath.Join(root, unitPath))
	}
	if u.Contents != nil {
		if err := writeNodeFile(root, unitPath, []byte(*u.Contents)); err != nil {
			return err
		}
	}
	for _, d := range u.Dropins {
		if d.Contents == nil {
			continue
		}
		if err := writeNodeFile(root, filepath.Join(unitDir, u.Name+".d", d.Name), []byte(*d.Contents)); err != nil {
			return err
		}
	}
	if u.Enabled == nil {
		return nil
	}
	// The unit file systemctl reads: the admin's, else the OS's.
	target := unitPath
	contents, err := os.ReadFile(filepath.Join(root, unitPath))
	if err != nil {
		target = filepath.Join("/usr/lib/systemd/system", u.Name)
		if contents, err = os.ReadFile(filepath.Join(root, target)); err != nil {
			return fmt.Errorf("enabled, but neither %s nor %s exists", unitPath, target)
		}
	}
	opts, err := unit.DeserializeOptions(bytes.NewReader(contents))
	if err != nil {
		return err
	}
	for _, o := range opts {
		suffix := map[string]string{"WantedBy": ".wants", "RequiredBy": ".requires"}[o.Name]
		if o.Section != "Install" || suffix == "" {
			continue
		}
		for _, t := range strings.Fields(o.Value) {
			link := filepath.Join(root, unitDir, t+suffix, u.Name)
			_ = os.Remove(link)
			if !*u.Enabled {
				continue
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(target, link); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeNodeFile(root, p string, data []byte) error {
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

// ignitionContents decodes a file's source: a data: URL (RFC 2397), gzip
// when the config says so. Other schemes are not served here.
func ignitionContents(r ign3types.Resource) ([]byte, error) {
	if r.Source == nil {
		return nil, nil
	}
	src := *r.Source
	if !strings.HasPrefix(src, "data:") {
		return nil, fmt.Errorf("source %q: only data: URLs are laid by the world's Ignition", src)
	}
	meta, payload, ok := strings.Cut(strings.TrimPrefix(src, "data:"), ",")
	if !ok {
		return nil, fmt.Errorf("data URL without a comma")
	}
	var data []byte
	var err error
	if strings.HasSuffix(meta, ";base64") {
		data, err = base64.StdEncoding.DecodeString(payload)
	} else {
		var s string
		s, err = url.PathUnescape(payload)
		data = []byte(s)
	}
	if err != nil {
		return nil, fmt.Errorf("data URL: %w", err)
	}
	if r.Compression != nil && *r.Compression == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	}
	return data, nil
}

func modeOr(m *int, def os.FileMode) os.FileMode {
	if m == nil {
		return def
	}
	return os.FileMode(*m)
}

// nodeIDs are the node's users and groups by name (its /etc/passwd and
// /etc/group, as Ignition resolves them in the target root).
type nodeIDs struct{ users, groups map[string]int }

func idsOf(root string) nodeIDs {
	return nodeIDs{users: readIDs(filepath.Join(root, "etc/passwd")), groups: readIDs(filepath.Join(root, "etc/group"))}
}

func readIDs(path string) map[string]int {
	out := map[string]int{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) > 2 {
			if id, err := strconv.Atoi(fields[2]); err == nil {
				out[fields[0]] = id
			}
		}
	}
	return out
}

func chownNode(root, p string, u ign3types.NodeUser, g ign3types.NodeGroup, ids nodeIDs) error {
	uid, gid := 0, 0
	switch {
	case u.ID != nil:
		uid = *u.ID
	case u.Name != nil && *u.Name != "":
		id, ok := ids.users[*u.Name]
		if !ok {
			return fmt.Errorf("%s: no user %q on the node", p, *u.Name)
		}
		uid = id
	}
	switch {
	case g.ID != nil:
		gid = *g.ID
	case g.Name != nil && *g.Name != "":
		id, ok := ids.groups[*g.Name]
		if !ok {
			return fmt.Errorf("%s: no group %q on the node", p, *g.Name)
		}
		gid = id
	}
	return os.Lchown(filepath.Join(root, p), uid, gid)
}
