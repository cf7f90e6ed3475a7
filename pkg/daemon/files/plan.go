package files

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/coreos/go-systemd/v22/unit"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
)

// Systemd paths the daemon writes units to, as the MCO does.
const (
	SystemdUnitDir   = "/etc/systemd/system"
	VendorUnitDir    = "/usr/lib/systemd/system"
	coreSSHKeysPath  = "/home/core/.ssh/authorized_keys.d/ignition"
	defaultFileMode  = 0o644
	defaultSSHMode   = 0o600
	maxDecodedSizeMB = 64
)

// NodeKind is what a path should be.
type NodeKind string

const (
	KindFile    NodeKind = "file"
	KindSymlink NodeKind = "symlink"
	// KindAbsent: the path must not exist (a file or unit the old config had).
	KindAbsent NodeKind = "absent"
)

// Node is one path in its wanted state. Paths are absolute host paths
// (without the writer's root prefix).
type Node struct {
	Path     string
	Kind     NodeKind
	Contents []byte
	Mode     os.FileMode
	UID, GID int
	Target   string // symlink target
}

// Owners resolves user and group names to IDs.
type Owners interface {
	UserID(name string) (int, error)
	GroupID(name string) (int, error)
}

// Plan returns the paths newCfg wants, plus KindAbsent nodes for the files,
// units and enablement links oldCfg had that newCfg does not, plus
// /etc/shadow when a password hash changes (shadowNode). oldCfg may be
// nil. Errors say which file or unit cannot be applied; nothing is written.
// root is the root prefix, used to read [Install] sections of vendor units.
func Plan(root string, oldCfg, newCfg *ign3types.Config, owners Owners) ([]Node, error) {
	want, err := configNodes(root, newCfg, owners, true)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, n := range want {
		seen[n.Path] = true
	}
	if oldCfg != nil {
		// Old paths only need their names; a broken old config must not block
		// moving away from it.
		had, _ := configNodes(root, oldCfg, nil, false)
		for _, n := range had {
			if !seen[n.Path] && n.Kind != KindAbsent {
				want = append(want, Node{Path: n.Path, Kind: KindAbsent})
				seen[n.Path] = true
			}
		}
	}
	sh, err := shadowNode(root, oldCfg, newCfg)
	if err != nil {
		return nil, err
	}
	if sh != nil && !seen[sh.Path] {
		want = append(want, *sh)
	}
	slices.SortStableFunc(want, func(a, b Node) int { return strings.Compare(a.Path, b.Path) })
	return want, nil
}

// configNodes lists the nodes of one config. With strict=false it skips
// what it cannot decode instead of failing (used for the old config).
func configNodes(root string, cfg *ign3types.Config, owners Owners, strict bool) ([]Node, error) {
	var out []Node
	add := func(n Node) error {
		for _, o := range out {
			if o.Path == n.Path {
				return fmt.Errorf("%s is defined twice", n.Path)
			}
		}
		out = append(out, n)
		return nil
	}
	for _, f := range cfg.Storage.Files {
		n, err := fileNode(f, owners)
		if err != nil {
			if strict {
				return nil, err
			}
			n = Node{Path: path.Clean(f.Path), Kind: KindFile}
		}
		if err := add(n); err != nil {
			return nil, err
		}
	}
	for _, u := range cfg.Systemd.Units {
		ns, err := unitNodes(root, u)
		if err != nil && strict {
			return nil, err
		}
		for _, n := range ns {
			if err := add(n); err != nil {
				return nil, err
			}
		}
	}
	for _, u := range cfg.Passwd.Users {
		if u.Name != "core" || len(u.SSHAuthorizedKeys) == 0 {
			continue
		}
		n, err := sshKeysNode(u, owners)
		if err != nil {
			if strict {
				return nil, err
			}
			n = Node{Path: coreSSHKeysPath, Kind: KindFile}
		}
		if err := add(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func fileNode(f ign3types.File, owners Owners) (Node, error) {
	p := path.Clean(f.Path)
	if !path.IsAbs(p) {
		return Node{}, fmt.Errorf("file %q: path is not absolute", f.Path)
	}
	data, err := decodeResource(f.Contents)
	if err != nil {
		return Node{}, fmt.Errorf("file %s: %w", p, err)
	}
	mode := os.FileMode(defaultFileMode)
	if f.Mode != nil {
		mode = os.FileMode(*f.Mode) & os.ModePerm
	}
	uid, gid, err := resolveOwner(f.User, f.Group, owners)
	if err != nil {
		return Node{}, fmt.Errorf("file %s: %w", p, err)
	}
	return Node{Path: p, Kind: KindFile, Contents: data, Mode: mode, UID: uid, GID: gid}, nil
}

func sshKeysNode(u ign3types.PasswdUser, owners Owners) (Node, error) {
	var b strings.Builder
	for _, k := range u.SSHAuthorizedKeys {
		b.WriteString(string(k))
		b.WriteByte('\n')
	}
	name := "core"
	uid, gid, err := resolveOwner(ign3types.NodeUser{Name: &name}, ign3types.NodeGroup{Name: &name}, owners)
	if err != nil {
		return Node{}, fmt.Errorf("SSH keys of core: %w", err)
	}
	return Node{Path: coreSSHKeysPath, Kind: KindFile, Contents: []byte(b.String()), Mode: defaultSSHMode, UID: uid, GID: gid}, nil
}

func resolveOwner(u ign3types.NodeUser, g ign3types.NodeGroup, owners Owners) (int, int, error) {
	uid, gid := 0, 0
	switch {
	case u.ID != nil:
		uid = *u.ID
	case u.Name != nil && *u.Name != "":
		if owners == nil {
			return 0, 0, fmt.Errorf("cannot resolve user %q", *u.Name)
		}
		id, err := owners.UserID(*u.Name)
		if err != nil {
			return 0, 0, err
		}
		uid = id
	}
	switch {
	case g.ID != nil:
		gid = *g.ID
	case g.Name != nil && *g.Name != "":
		if owners == nil {
			return 0, 0, fmt.Errorf("cannot resolve group %q", *g.Name)
		}
		id, err := owners.GroupID(*g.Name)
		if err != nil {
			return 0, 0, err
		}
		gid = id
	}
	return uid, gid, nil
}

// unitNodes lists a unit's file, drop-ins and enablement (or mask) links.
func unitNodes(root string, u ign3types.Unit) ([]Node, error) {
	if u.Name == "" || strings.Contains(u.Name, "/") {
		return nil, fmt.Errorf("unit %q: invalid name", u.Name)
	}
	unitPath := path.Join(SystemdUnitDir, u.Name)
	var out []Node
	masked := u.Mask != nil && *u.Mask
	var contents []byte
	switch {
	case masked:
		out = append(out, Node{Path: unitPath, Kind: KindSymlink, Target: "/dev/null"})
	case u.Contents != nil:
		contents = []byte(*u.Contents)
		out = append(out, Node{Path: unitPath, Kind: KindFile, Contents: contents, Mode: defaultFileMode})
	}
	for _, d := range u.Dropins {
		if d.Name == "" || strings.Contains(d.Name, "/") {
			return nil, fmt.Errorf("unit %s: invalid drop-in name %q", u.Name, d.Name)
		}
		p := path.Join(SystemdUnitDir, u.Name+".d", d.Name)
		if d.Contents == nil {
			out = append(out, Node{Path: p, Kind: KindAbsent})
			continue
		}
		out = append(out, Node{Path: p, Kind: KindFile, Contents: []byte(*d.Contents), Mode: defaultFileMode})
	}
	if u.Enabled == nil || masked {
		return out, nil
	}
	linkTarget := unitPath
	if contents == nil {
		// Enabling a unit the OS ships: read its [Install] section.
		for _, dir := range []string{SystemdUnitDir, VendorUnitDir} {
			b, err := os.ReadFile(path.Join(root, dir, u.Name))
			if err == nil {
				contents, linkTarget = b, path.Join(dir, u.Name)
				break
			}
		}
		if contents == nil {
			return out, fmt.Errorf("unit %s: enabled is set but the unit has no contents and is not installed", u.Name)
		}
	}
	targets, err := installTargets(contents)
	if err != nil {
		return out, fmt.Errorf("unit %s: %w", u.Name, err)
	}
	for _, t := range targets {
		n := Node{Path: path.Join(SystemdUnitDir, t, u.Name), Kind: KindAbsent}
		if *u.Enabled {
			n.Kind, n.Target = KindSymlink, linkTarget
		}
		out = append(out, n)
	}
	return out, nil
}

// installTargets returns the .wants/.requires directories systemctl enable
// would link the unit into.
func installTargets(contents []byte) ([]string, error) {
	opts, err := unit.DeserializeOptions(bytes.NewReader(contents))
	if err != nil {
		return nil, fmt.Errorf("parsing unit: %w", err)
	}
	var out []string
	for _, o := range opts {
		if o.Section != "Install" {
			continue
		}
		suffix := ""
		switch o.Name {
		case "WantedBy":
			suffix = ".wants"
		case "RequiredBy":
			suffix = ".requires"
		default:
			continue
		}
		for _, t := range strings.Fields(o.Value) {
			out = append(out, t+suffix)
		}
	}
	return out, nil
}

// DecodeResource returns a file's contents (see decodeResource).
func DecodeResource(r ign3types.Resource) ([]byte, error) { return decodeResource(r) }

// decodeResource returns a file's contents. Only data: URLs are supported:
// the daemon does not fetch remote sources on a running node.
func decodeResource(r ign3types.Resource) ([]byte, error) {
	if r.Source == nil {
		return []byte{}, nil
	}
	src := *r.Source
	u, err := url.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("parsing contents source: %w", err)
	}
	if u.Scheme != "data" {
		return nil, fmt.Errorf("contents source scheme %q is not supported (only data: URLs are applied in place)", u.Scheme)
	}
	data, err := decodeDataURL(src)
	if err != nil {
		return nil, err
	}
	if r.Compression != nil && *r.Compression != "" {
		if *r.Compression != "gzip" {
			return nil, fmt.Errorf("compression %q is not supported", *r.Compression)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("gunzip contents: %w", err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, maxDecodedSizeMB<<20))
		if err != nil {
			return nil, fmt.Errorf("gunzip contents: %w", err)
		}
	}
	if r.Verification.Hash != nil {
		if err := verifyHash(*r.Verification.Hash, data); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// decodeDataURL decodes an RFC 2397 data URL.
func decodeDataURL(s string) ([]byte, error) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return nil, fmt.Errorf("not a data URL")
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, fmt.Errorf("data URL without a comma")
	}
	if strings.HasSuffix(meta, ";base64") {
		// Be lenient about padding and URL-safe alphabets like Ignition is.
		p, err := url.PathUnescape(payload)
		if err != nil {
			return nil, fmt.Errorf("data URL: %w", err)
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(p); err == nil {
				return b, nil
			}
		}
		return nil, fmt.Errorf("data URL: invalid base64 payload")
	}
	b, err := url.PathUnescape(payload)
	if err != nil {
		return nil, fmt.Errorf("data URL: %w", err)
	}
	return []byte(b), nil
}

func verifyHash(spec string, data []byte) error {
	algo, sum, ok := strings.Cut(spec, "-")
	if !ok {
		return fmt.Errorf("verification hash %q: want <algo>-<hex>", spec)
	}
	var h hash.Hash
	switch algo {
	case "sha512":
		h = sha512.New()
	case "sha256":
		h = sha256.New()
	default:
		return fmt.Errorf("verification hash algorithm %q is not supported", algo)
	}
	h.Write(data)
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(sum) {
		return fmt.Errorf("contents do not match verification hash %s (got %s-%s)", spec, algo, got)
	}
	return nil
}

// PasswdOwners resolves names from <root>/etc/passwd and <root>/etc/group.
type PasswdOwners struct{ Root string }

// UserID implements Owners.
func (p PasswdOwners) UserID(name string) (int, error) {
	return lookupID(path.Join(p.Root, "/etc/passwd"), name, "user")
}

// GroupID implements Owners.
func (p PasswdOwners) GroupID(name string) (int, error) {
	return lookupID(path.Join(p.Root, "/etc/group"), name, "group")
}

func lookupID(file, name, what string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", what, name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 3 && fields[0] == name {
			id, err := strconv.Atoi(fields[2])
			if err != nil {
				return 0, fmt.Errorf("%s %q: bad id in %s: %w", what, name, file, err)
			}
			return id, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("reading %s: %w", file, err)
	}
	return 0, fmt.Errorf("%s %q does not exist on the node (%s)", what, name, file)
}
