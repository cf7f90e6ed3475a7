package mcfg

import (
	"reflect"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

func TestDiffConfigs(t *testing.T) {
	parse := func(raw string) *mcfgv1.MachineConfig { return mc("x", "worker", raw) }
	base := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,a"}},{"path":"/etc/b","contents":{"source":"data:,b"}}]},"systemd":{"units":[{"name":"u.service","contents":"[Service]\n"}]}}`
	cases := []struct {
		name     string
		old, new string
		mutOld   func(*mcfgv1.MachineConfigSpec)
		mutNew   func(*mcfgv1.MachineConfigSpec)
		want     Diff
	}{
		{name: "same content, another ignition version: empty", old: base, new: strings.Replace(base, "3.4.0", "3.2.0", 1), want: Diff{}},
		{name: "file changed, added, removed", old: base,
			new:  `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,A"}},{"path":"/etc/c","contents":{"source":"data:,c"}}]},"systemd":{"units":[{"name":"u.service","contents":"[Service]\n"}]}}`,
			want: Diff{Files: []string{"/etc/a", "/etc/b", "/etc/c"}}},
		{name: "a mode change is a file change", old: base, new: strings.Replace(base, `"path":"/etc/a",`, `"path":"/etc/a","mode":384,`, 1), want: Diff{Files: []string{"/etc/a"}}},
		{name: "unit changed and removed", old: base, new: `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,a"}},{"path":"/etc/b","contents":{"source":"data:,b"}}]},"systemd":{"units":[{"name":"v.service","mask":true}]}}`,
			want: Diff{Units: []string{"u.service", "v.service"}}},
		{name: "SSH key", old: base, new: strings.Replace(base, `"systemd"`, `"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 AAAA"]}]},"systemd"`, 1), want: Diff{Passwd: true}},
		{name: "OS, kargs, fips, kernel type, extensions", old: base, new: base,
			mutOld: func(s *mcfgv1.MachineConfigSpec) { s.OSImageURL = "a"; s.KernelArguments = []string{"x"} },
			mutNew: func(s *mcfgv1.MachineConfigSpec) {
				s.OSImageURL, s.KernelArguments, s.FIPS, s.KernelType, s.Extensions = "b", []string{"y"}, true, "realtime", []string{"usbguard"}
			},
			want: Diff{OSUpdate: true, KernelArgs: true, FIPS: true, KernelType: true, Extensions: true}},
		{name: "nil and empty lists, \"\" and default kernel type: no change", old: base, new: base,
			mutOld: func(s *mcfgv1.MachineConfigSpec) { s.KernelArguments, s.KernelType = nil, "" },
			mutNew: func(s *mcfgv1.MachineConfigSpec) {
				s.KernelArguments, s.Extensions, s.KernelType = []string{}, []string{}, "default"
			},
			want: Diff{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, n := parse(tc.old), parse(tc.new)
			if tc.mutOld != nil {
				tc.mutOld(&o.Spec)
			}
			if tc.mutNew != nil {
				tc.mutNew(&n.Spec)
			}
			oi, err := Parse(o)
			if err != nil {
				t.Fatal(err)
			}
			ni, err := Parse(n)
			if err != nil {
				t.Fatal(err)
			}
			got := DiffConfigs(o, n, oi, ni)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("diff = %+v, want %+v", got, tc.want)
			}
			if got.Empty() != reflect.DeepEqual(tc.want, Diff{}) {
				t.Fatalf("Empty() = %v", got.Empty())
			}
		})
	}
}

// The safe and unsafe changes are the MCO's (isSafeContainerRegistryConfChanges,
// pkg/daemon/drain.go, release-4.20) as its drain_test.go describes them.
func TestRegistriesChangeSafe(t *testing.T) {
	conf := func(toml string) string {
		return `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/containers/registries.conf","contents":{"source":"data:,` + urlEscape(toml) + `"}}]}}`
	}
	const (
		search = "unqualified-search-registries = ['registry.test', 'search.test']\n"
		reg    = "[[registry]]\nprefix = ''\nlocation = 'release.test/openshift'\n"
		digest = "[[registry.mirror]]\nlocation = 'mirror.example.com/openshift'\npull-from-mirror = 'digest-only'\n"
		tag    = "[[registry.mirror]]\nlocation = 'mirror.example.com/openshift'\n"
	)
	cases := []struct {
		name, old, new string
		unsafe         string
	}{
		{name: "digest-only mirror added", old: search + reg, new: search + reg + digest},
		{name: "new registry with digest-only mirrors", old: search, new: search + reg + digest},
		{name: "mirror without digest-only added", old: search + reg, new: search + reg + tag, unsafe: "without pull-from-mirror=digest-only"},
		{name: "registry removed", old: search + reg, new: search, unsafe: "was removed"},
		{name: "search registry removed", old: search, new: "unqualified-search-registries = ['registry.test']\n", unsafe: "unqualified-search-registries"},
		{name: "search registries reordered", old: search, new: "unqualified-search-registries = ['search.test', 'registry.test']\n", unsafe: "unqualified-search-registries"},
		{name: "blocked", old: search + reg, new: search + reg + "blocked = true\n", unsafe: "blocked"},
		{name: "mirror removed", old: search + reg + digest, new: search + reg, unsafe: "mirror mirror.example.com/openshift of registry release.test/openshift was removed"},
		{name: "digest-only dropped from a mirror", old: search + reg + digest, new: search + reg + tag, unsafe: "pull-from-mirror"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseRaw([]byte(conf(tc.old)))
			if err != nil {
				t.Fatal(err)
			}
			n, err := ParseRaw([]byte(conf(tc.new)))
			if err != nil {
				t.Fatal(err)
			}
			err = RegistriesChangeSafe(o, n)
			if tc.unsafe == "" && err != nil {
				t.Fatalf("safe change judged unsafe: %v", err)
			}
			if tc.unsafe != "" && (err == nil || !strings.Contains(err.Error(), tc.unsafe)) {
				t.Fatalf("err = %v, want containing %q", err, tc.unsafe)
			}
		})
	}
}

func urlEscape(s string) string {
	r := strings.NewReplacer("%", "%25", "\n", "%0A", "'", "%27", " ", "%20", "[", "%5B", "]", "%5D", "=", "%3D", ",", "%2C", "\"", "%22")
	return r.Replace(s)
}
