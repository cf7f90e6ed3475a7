package mcfg

import (
	"fmt"
	"reflect"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// RegistriesChangeSafe returns nil when the change of registries.conf from
// oldIgn to newIgn is one the MCO applies with a crio reload and no drain,
// else an error saying why a drain is needed. The rules are the MCO's
// isSafeContainerRegistryConfChanges (openshift/machine-config-operator
// pkg/daemon/drain.go, release-4.20 at afed09939d80): no unqualified search
// registry removed or reordered, no registry removed, no prefix, location,
// blocked or insecure change, no mirror removed, no mirror's
// pull-from-mirror changed away from digest-only, and every added mirror
// (and every mirror of an added registry) digest-only.
func RegistriesChangeSafe(oldIgn, newIgn *ign3types.Config) error {
	oldConf, err := registriesConf(oldIgn)
	if err != nil {
		return err
	}
	newConf, err := registriesConf(newIgn)
	if err != nil {
		return err
	}
	if len(oldConf.UnqualifiedSearchRegistries) > len(newConf.UnqualifiedSearchRegistries) {
		return fmt.Errorf("an unqualified-search-registries entry was removed")
	}
	for i, r := range oldConf.UnqualifiedSearchRegistries {
		if newConf.UnqualifiedSearchRegistries[i] != r {
			return fmt.Errorf("unqualified-search-registries changed at %d (%s)", i, r)
		}
	}
	oldRegs, newRegs := byScope(oldConf), byScope(newConf)
	for scope := range oldRegs {
		if _, ok := newRegs[scope]; !ok {
			return fmt.Errorf("registry %s was removed", scope)
		}
	}
	for scope, n := range newRegs {
		o, ok := oldRegs[scope]
		if !ok {
			if !allDigestOnly(n) {
				return fmt.Errorf("registry %s was added with a mirror that is not pull-from-mirror=digest-only", scope)
			}
			continue
		}
		if reflect.DeepEqual(o, n) {
			continue
		}
		switch {
		case o.Prefix != n.Prefix:
			return fmt.Errorf("prefix of registry %s changed", scope)
		case o.Location != n.Location:
			return fmt.Errorf("location of registry %s changed", scope)
		case o.Blocked != n.Blocked:
			return fmt.Errorf("blocked of registry %s changed", scope)
		case o.Insecure != n.Insecure:
			return fmt.Errorf("insecure of registry %s changed", scope)
		}
		for _, m := range o.Mirrors {
			if _, found := findMirror(m.Location, n.Mirrors); !found {
				return fmt.Errorf("mirror %s of registry %s was removed", m.Location, scope)
			}
		}
		for _, m := range n.Mirrors {
			old, found := findMirror(m.Location, o.Mirrors)
			if found && m.PullFromMirror != old.PullFromMirror && m.PullFromMirror != sysregistriesv2.MirrorByDigestOnly {
				return fmt.Errorf("pull-from-mirror of mirror %s changed from %q to %q", m.Location, old.PullFromMirror, m.PullFromMirror)
			}
			if !found && m.PullFromMirror != sysregistriesv2.MirrorByDigestOnly && !n.MirrorByDigestOnly {
				return fmt.Errorf("mirror %s was added to registry %s without pull-from-mirror=digest-only", m.Location, scope)
			}
		}
	}
	return nil
}

// registriesConf decodes registries.conf from cfg (an absent file is empty).
func registriesConf(cfg *ign3types.Config) (*sysregistriesv2.V2RegistriesConf, error) {
	out := &sysregistriesv2.V2RegistriesConf{}
	for _, f := range cfg.Storage.Files {
		if f.Path != RegistriesConfPath {
			continue
		}
		data, err := files.DecodeResource(f.Contents)
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", RegistriesConfPath, err)
		}
		if _, err := toml.Decode(string(data), out); err != nil {
			return nil, fmt.Errorf("decoding TOML of %s: %w", RegistriesConfPath, err)
		}
	}
	return out, nil
}

func byScope(c *sysregistriesv2.V2RegistriesConf) map[string]sysregistriesv2.Registry {
	out := map[string]sysregistriesv2.Registry{}
	for _, r := range c.Registries {
		scope := r.Location
		if r.Prefix != "" {
			scope = r.Prefix
		}
		out[scope] = r
	}
	return out
}

func findMirror(loc string, mirrors []sysregistriesv2.Endpoint) (sysregistriesv2.Endpoint, bool) {
	for _, m := range mirrors {
		if m.Location == loc {
			return m, true
		}
	}
	return sysregistriesv2.Endpoint{}, false
}

func allDigestOnly(r sysregistriesv2.Registry) bool {
	if len(r.Mirrors) == 0 {
		return r.MirrorByDigestOnly
	}
	for _, m := range r.Mirrors {
		if m.PullFromMirror != sysregistriesv2.MirrorByDigestOnly {
			return false
		}
	}
	return true
}
