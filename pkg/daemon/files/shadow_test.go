package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
)

func TestShadowNode(t *testing.T) {
	const shadow = "root:*:19000:0:99999:7:::\ncore:*:19000:0:99999:7:::\n"
	hash := "$6$salt$abc"
	other := "$6$salt$def"
	user := func(h *string, keys ...string) ign3types.Config {
		c := ign3types.Config{}
		u := ign3types.PasswdUser{Name: "core", PasswordHash: h}
		for _, k := range keys {
			u.SSHAuthorizedKeys = append(u.SSHAuthorizedKeys, ign3types.SSHAuthorizedKey(k))
		}
		c.Passwd.Users = []ign3types.PasswdUser{u}
		return c
	}
	noUsers := ign3types.Config{}
	cases := []struct {
		name     string
		shadow   string // "" = no /etc/shadow
		old, new *ign3types.Config
		want     string // new core hash; "" = no node
		err      string
	}{
		{name: "hash set", shadow: shadow, old: cfgPtr(user(nil, "k")), new: cfgPtr(user(&hash, "k")), want: hash},
		{name: "hash changed", shadow: strings.Replace(shadow, "core:*", "core:"+hash, 1), old: cfgPtr(user(&hash)), new: cfgPtr(user(&other)), want: other},
		{name: "hash removed: locked", shadow: strings.Replace(shadow, "core:*", "core:"+hash, 1), old: cfgPtr(user(&hash)), new: cfgPtr(user(nil, "k")), want: "*"},
		{name: "user gone from the config: locked", shadow: strings.Replace(shadow, "core:*", "core:"+hash, 1), old: cfgPtr(user(&hash)), new: &noUsers, want: "*"},
		{name: "passwd unchanged: nothing", shadow: shadow, old: cfgPtr(user(&hash)), new: cfgPtr(user(&hash))},
		{name: "already locked: nothing", shadow: shadow, old: cfgPtr(user(nil, "a")), new: cfgPtr(user(nil, "b"))},
		{name: "first config with a hash", shadow: shadow, new: cfgPtr(user(&hash)), want: hash},
		{name: "SSH key change without /etc/shadow: nothing", old: cfgPtr(user(nil, "a")), new: cfgPtr(user(nil, "b"))},
		{name: "hash without /etc/shadow: error", old: cfgPtr(user(nil)), new: cfgPtr(user(&hash)), err: "does not exist"},
		{name: "hash for a user the node lacks: error", shadow: "root:*:1::::::\n", old: cfgPtr(user(nil)), new: cfgPtr(user(&hash)), err: "the user does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.shadow != "" {
				if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, ShadowPath), []byte(tc.shadow), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			n, err := shadowNode(root, tc.old, tc.new)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if n != nil {
					t.Fatalf("node = %q, want none", n.Contents)
				}
				return
			}
			if n == nil {
				t.Fatal("no node")
			}
			lines := strings.Split(string(n.Contents), "\n")
			if lines[0] != "root:*:19000:0:99999:7:::" || lines[1] != "core:"+tc.want+":19000:0:99999:7:::" || n.Mode != 0o640 {
				t.Fatalf("shadow = %q mode %o", n.Contents, n.Mode)
			}
		})
	}
}

func cfgPtr(c ign3types.Config) *ign3types.Config { return &c }
