package mcfg

import (
	"errors"
	"reflect"
	"testing"
)

func TestUnsupportedSections(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want []string
	}{
		{name: "files and units are supported", raw: `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,a"}}]},"systemd":{"units":[{"name":"a.service","enabled":true}]},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 AAAA"]}]}}`},
		{name: "disks and filesystems", raw: `{"ignition":{"version":"3.4.0"},"storage":{"disks":[{"device":"/dev/vdb","wipeTable":true}],"filesystems":[{"device":"/dev/vdb","format":"xfs","path":"/var/lib/x"}]}}`,
			want: []string{"storage.disks", "storage.filesystems"}},
		{name: "raid and luks", raw: `{"ignition":{"version":"3.4.0"},"storage":{"raid":[{"name":"md0","level":"raid1","devices":["/dev/vdb","/dev/vdc"]}],"luks":[{"name":"data","device":"/dev/md/md0"}]}}`,
			want: []string{"storage.luks", "storage.raid"}},
		{name: "append, links, groups, other users", raw: `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/a","append":[{"source":"data:,x"}]}],"links":[{"path":"/etc/l","target":"/etc/a"}]},"passwd":{"groups":[{"name":"g"}],"users":[{"name":"bob"},{"name":"core","shell":"/bin/zsh"}]}}`,
			want: []string{"passwd.groups", "passwd.users[bob] (only \"core\" is supported)", "passwd.users[core] (only sshAuthorizedKeys and passwordHash are supported)", "storage.files[/etc/a].append", "storage.links"}},
		{name: "remote configs", raw: `{"ignition":{"version":"3.4.0","config":{"merge":[{"source":"https://config.example/x"}]}}}`,
			want: []string{"ignition.config (remote configs are not fetched)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseRaw([]byte(tc.raw))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if got := UnsupportedSections(cfg); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("sections = %q, want %q", got, tc.want)
			}
			err = ValidateForDaemon(cfg)
			var ue *UnsupportedError
			if (err != nil) != (len(tc.want) > 0) || (err != nil && !errors.As(err, &ue)) {
				t.Fatalf("ValidateForDaemon = %v", err)
			}
		})
	}
}

func TestReconcilable(t *testing.T) {
	disk := `"disks":[{"device":"/dev/vdb","wipeTable":true}]`
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "same install-time disks, new file", old: `{"ignition":{"version":"3.4.0"},"storage":{` + disk + `}}`,
			new: `{"ignition":{"version":"3.4.0"},"storage":{` + disk + `,"files":[{"path":"/etc/a","contents":{"source":"data:,a"}}]}}`},
		{name: "disks changed", old: `{"ignition":{"version":"3.4.0"}}`, new: `{"ignition":{"version":"3.4.0"},"storage":{` + disk + `}}`,
			want: []string{"storage.disks changed"}},
		{name: "links may be removed", old: `{"ignition":{"version":"3.4.0"},"storage":{"links":[{"path":"/etc/l","target":"/x"}]}}`, new: `{"ignition":{"version":"3.4.0"}}`},
		{name: "core ssh keys may change", old: `{"ignition":{"version":"3.4.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["a"]}]}}`,
			new: `{"ignition":{"version":"3.4.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["b"]}]}}`},
		{name: "a new user may not be added", old: `{"ignition":{"version":"3.4.0"}}`, new: `{"ignition":{"version":"3.4.0"},"passwd":{"users":[{"name":"bob"}]}}`,
			want: []string{"passwd.users[bob] (only \"core\" is supported)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseRaw([]byte(tc.old))
			if err != nil {
				t.Fatal(err)
			}
			n, err := ParseRaw([]byte(tc.new))
			if err != nil {
				t.Fatal(err)
			}
			err = Reconcilable(o, n)
			var ue *UnsupportedError
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("unexpected: %v", err)
			case tc.want != nil && (!errors.As(err, &ue) || !reflect.DeepEqual(ue.Sections, tc.want)):
				t.Fatalf("err = %v, want sections %q", err, tc.want)
			}
		})
	}
}
