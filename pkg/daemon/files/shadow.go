package files

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"reflect"
	"syscall"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
)

// ShadowPath holds the users' password hashes.
const ShadowPath = "/etc/shadow"

// lockedHash is the hash field of an account without a usable password.
const lockedHash = "*"

// shadowNode returns the /etc/shadow node that applies the core user's
// passwordHash, nil when nothing changes. The rules are the MCO's
// SetPasswordHash (openshift/machine-config-operator pkg/daemon/update.go,
// release-4.20 at afed09939d80): only when the passwd section changed, each
// user of the new config gets its passwordHash, "*" (locked) when it has
// none; a user the old config had and the new one lacks is locked too (the
// MCO clears such a user's hash to "", which leaves the account without a
// password; tandem locks it instead). The file is rewritten whole, so the
// writer's backup and rollback cover it. A hash for a user that /etc/shadow
// does not have is an error: the change cannot be applied and is not dropped.
func shadowNode(root string, oldCfg, newCfg *ign3types.Config) (*Node, error) {
	if oldCfg != nil && reflect.DeepEqual(oldCfg.Passwd, newCfg.Passwd) {
		return nil, nil
	}
	want := map[string]string{}
	for _, u := range newCfg.Passwd.Users {
		h := lockedHash
		if u.PasswordHash != nil && *u.PasswordHash != "" {
			h = *u.PasswordHash
		}
		want[u.Name] = h
	}
	if oldCfg != nil {
		for _, u := range oldCfg.Passwd.Users {
			if _, ok := want[u.Name]; !ok {
				want[u.Name] = lockedHash
			}
		}
	}
	if oldCfg == nil {
		// A first config only sets hashes it names.
		for name, h := range want {
			if h == lockedHash {
				delete(want, name)
			}
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	explicit := false
	for _, h := range want {
		explicit = explicit || h != lockedHash
	}
	p := path.Join(root, ShadowPath)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		if !explicit {
			return nil, nil // nothing to lock where there are no passwords
		}
		return nil, fmt.Errorf("passwordHash: %s does not exist on the node", ShadowPath)
	}
	if err != nil {
		return nil, fmt.Errorf("passwordHash: %w", err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("passwordHash: %w", err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	found := map[string]bool{}
	changed := false
	for i, l := range lines {
		fields := bytes.SplitN(l, []byte(":"), 3)
		if len(fields) < 3 {
			continue
		}
		h, ok := want[string(fields[0])]
		if !ok {
			continue
		}
		found[string(fields[0])] = true
		if string(fields[1]) != h {
			lines[i] = bytes.Join([][]byte{fields[0], []byte(h), fields[2]}, []byte(":"))
			changed = true
		}
	}
	for name, h := range want {
		if !found[name] && h != lockedHash {
			return nil, fmt.Errorf("passwordHash of user %s: the user does not exist in %s (creating users is not supported)", name, ShadowPath)
		}
	}
	if !changed {
		return nil, nil
	}
	n := &Node{Path: ShadowPath, Kind: KindFile, Contents: bytes.Join(lines, nil), Mode: fi.Mode().Perm()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		n.UID, n.GID = int(st.Uid), int(st.Gid)
	}
	return n, nil
}
