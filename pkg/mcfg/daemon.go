package mcfg

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
)

// CoreUserName is the only user whose settings the daemon applies in place.
const CoreUserName = "core"

// UnsupportedError lists the parts of an Ignition config that the daemon
// cannot apply to a running node; such a config needs a reprovision. The
// daemon reports it as Unreconcilable.
type UnsupportedError struct {
	Sections []string
}

func (e *UnsupportedError) Error() string {
	return "config cannot be applied in place: " + strings.Join(e.Sections, "; ")
}

// UnsupportedSections lists what cfg contains that the daemon cannot apply in
// place: storage disks, filesystems, raid, luks, directories and links, file
// appends, passwd groups, users other than "core" or "core" settings other
// than SSH keys and password hash, remote Ignition configs (merge/replace),
// and Ignition kernelArguments.shouldNotExist. Systemd units and files are
// supported. The result is nil when everything is supported.
//
// This judges a config on its own. A node that already runs a config should
// use Reconcilable, as the MCO does: a disk layout written at install time
// stays in every later config and is fine as long as it does not change.
func UnsupportedSections(cfg *ign3types.Config) []string {
	var out []string
	s := cfg.Storage
	for name, n := range map[string]int{
		"storage.disks": len(s.Disks), "storage.filesystems": len(s.Filesystems),
		"storage.raid": len(s.Raid), "storage.luks": len(s.Luks),
		"storage.directories": len(s.Directories), "storage.links": len(s.Links),
	} {
		if n > 0 {
			out = append(out, name)
		}
	}
	out = append(out, fileAppends(cfg)...)
	if len(cfg.Passwd.Groups) > 0 {
		out = append(out, "passwd.groups")
	}
	out = append(out, unsupportedUsers(cfg.Passwd.Users)...)
	if len(cfg.Ignition.Config.Merge) > 0 || cfg.Ignition.Config.Replace.Source != nil {
		out = append(out, "ignition.config (remote configs are not fetched)")
	}
	if len(cfg.KernelArguments.ShouldNotExist) > 0 {
		out = append(out, "kernelArguments.shouldNotExist")
	}
	slices.Sort(out)
	return out
}

// ValidateForDaemon returns an *UnsupportedError when cfg has sections the
// daemon cannot apply in place (see UnsupportedSections), else nil.
func ValidateForDaemon(cfg *ign3types.Config) error {
	if s := UnsupportedSections(cfg); len(s) > 0 {
		return &UnsupportedError{Sections: s}
	}
	return nil
}

// Reconcilable tells whether a node running oldCfg can move to newCfg in
// place, with the MCO daemon's rules: disks, filesystems, raid, luks and
// directories must not change; links may only be removed; no file may
// append; passwd groups must not change and users may only be "core" with
// new SSH keys or password hash; no kernelArguments.shouldNotExist. Files,
// systemd units and the Ignition section (first boot only) may change.
// It returns an *UnsupportedError naming every offending section, or nil.
func Reconcilable(oldCfg, newCfg *ign3types.Config) error {
	var out []string
	o, n := oldCfg.Storage, newCfg.Storage
	changed := func(section string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			out = append(out, section+" changed")
		}
	}
	changed("storage.disks", o.Disks, n.Disks)
	changed("storage.filesystems", o.Filesystems, n.Filesystems)
	changed("storage.raid", o.Raid, n.Raid)
	changed("storage.luks", o.Luks, n.Luks)
	changed("storage.directories", o.Directories, n.Directories)
	if !reflect.DeepEqual(o.Links, n.Links) && len(n.Links) > 0 {
		out = append(out, "storage.links changed")
	}
	out = append(out, fileAppends(newCfg)...)
	changed("passwd.groups", oldCfg.Passwd.Groups, newCfg.Passwd.Groups)
	if !reflect.DeepEqual(oldCfg.Passwd.Users, newCfg.Passwd.Users) {
		out = append(out, unsupportedUsers(newCfg.Passwd.Users)...)
	}
	if len(newCfg.KernelArguments.ShouldNotExist) > 0 {
		out = append(out, "kernelArguments.shouldNotExist")
	}
	if len(out) > 0 {
		slices.Sort(out)
		return &UnsupportedError{Sections: out}
	}
	return nil
}

func fileAppends(cfg *ign3types.Config) []string {
	var out []string
	for _, f := range cfg.Storage.Files {
		if len(f.Append) > 0 {
			out = append(out, fmt.Sprintf("storage.files[%s].append", f.Path))
		}
	}
	return out
}

// unsupportedUsers names users other than core, and core settings other
// than its SSH keys and password hash.
func unsupportedUsers(users []ign3types.PasswdUser) []string {
	var out []string
	for _, u := range users {
		if u.Name != CoreUserName {
			out = append(out, fmt.Sprintf("passwd.users[%s] (only %q is supported)", u.Name, CoreUserName))
			continue
		}
		onlyKeys := ign3types.PasswdUser{Name: u.Name, SSHAuthorizedKeys: u.SSHAuthorizedKeys, PasswordHash: u.PasswordHash}
		if !reflect.DeepEqual(u, onlyKeys) {
			out = append(out, fmt.Sprintf("passwd.users[%s] (only sshAuthorizedKeys and passwordHash are supported)", u.Name))
		}
	}
	return out
}
