package osdouble

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The oracle of the pull's credentials and trust, written from upstream
// (see README.md "Pulls: credentials and trust"), not from the double's
// tables: rpm-ostree (ostree-ext) reads /run/ostree/auth.json, then
// /etc/ostree/auth.json, then, from v2024.6 (ostree-ext 0.13), also
// /usr/lib/ostree/auth.json, the first that opens; otherwise it pulls
// anonymously, ignoring the standard containers auth files. An absolute
// symlink is a path of the node. Against a registry that requires
// authentication, an anonymous pull fails on the manifest with the
// containers error a public registry gives ("unauthorized: access to the
// requested resource is not authorized"), wrong credentials at the token
// endpoint ("invalid username/password"). TLS is verified against the node's
// certs.d unless registries.conf marks the registry insecure.
const (
	errAnonymous = "Creating importer: failed to invoke method OpenImage: reading manifest"
	errAnonTail  = "unauthorized: access to the requested resource is not authorized"
	errBadCreds  = "unable to retrieve auth token: invalid username/password"
	errUnknownCA = "x509: certificate signed by unknown authority"
)

// authCase sets the node's files up (removing /etc/ostree/auth.json first)
// and says what a rebase does on each profile.
type authCase struct {
	name  string
	setup func(t *testing.T, n testNode)
	// want is "" for success, else a part of the error, per profile (a
	// missing profile takes "*").
	want map[string]string
}

func badAuthJSON() string {
	return `{"auths":{"` + reg.Host() + `":{"auth":"` + "dGFuZGVtLXB1bGw6d3Jvbmc=" + `"}}}` // tandem-pull:wrong
}

func authCases() []authCase {
	good := func() string { return string(reg.AuthJSON()) }
	return []authCase{
		{"no auth file: anonymous", func(*testing.T, testNode) {}, map[string]string{"*": errAnonTail}},
		{"/run/ostree/auth.json", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Run, "/ostree/auth.json", good())
		}, map[string]string{"*": ""}},
		{"/run/ostree/auth.json links to the kubelet's pull secret (absolute, a node path)", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Root, "/var/lib/kubelet/config.json", good())
			symlink(t, "/var/lib/kubelet/config.json", filepath.Join(n.Run, "ostree", "auth.json"))
		}, map[string]string{"*": ""}},
		{"/run/ostree/auth.json dangling: /etc/ostree/auth.json", func(t *testing.T, n testNode) {
			symlink(t, "/var/lib/kubelet/config.json", filepath.Join(n.Run, "ostree", "auth.json"))
			writeNodeFile(t, n.Root, "/etc/ostree/auth.json", good())
		}, map[string]string{"*": ""}},
		{"/run/ostree/auth.json comes first", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Run, "/ostree/auth.json", badAuthJSON())
			writeNodeFile(t, n.Root, "/etc/ostree/auth.json", good())
		}, map[string]string{"*": errBadCreds}},
		{"/etc/ostree/auth.json before /usr/lib/ostree/auth.json", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Root, "/etc/ostree/auth.json", badAuthJSON())
			writeNodeFile(t, n.Root, "/usr/lib/ostree/auth.json", good())
		}, map[string]string{"*": errBadCreds}},
		{"/usr/lib/ostree/auth.json only", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Root, "/usr/lib/ostree/auth.json", good())
		}, map[string]string{"2023.12": errAnonTail, "*": ""}},
		{"the standard containers auth files are not read", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Run, "/containers/0/auth.json", good())
			writeNodeFile(t, n.Root, "/etc/containers/auth.json", good())
			writeNodeFile(t, n.Root, "/root/.docker/config.json", good())
		}, map[string]string{"*": errAnonTail}},
		{"the registry's CA not trusted", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Root, "/etc/ostree/auth.json", good())
			if err := os.RemoveAll(filepath.Join(n.Root, "etc", "containers", "certs.d")); err != nil {
				t.Fatal(err)
			}
		}, map[string]string{"*": errUnknownCA}},
		{"the CA in /etc/docker/certs.d", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Root, "/etc/ostree/auth.json", good())
			dir := filepath.Join(n.Root, "etc", "containers", "certs.d")
			if err := os.MkdirAll(filepath.Join(n.Root, "etc", "docker"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(dir, filepath.Join(n.Root, "etc", "docker", "certs.d")); err != nil {
				t.Fatal(err)
			}
		}, map[string]string{"*": ""}},
		{"an insecure registry in registries.conf skips verification", func(t *testing.T, n testNode) {
			writeNodeFile(t, n.Root, "/etc/ostree/auth.json", good())
			if err := os.RemoveAll(filepath.Join(n.Root, "etc", "containers", "certs.d")); err != nil {
				t.Fatal(err)
			}
			writeNodeFile(t, n.Root, "/etc/containers/registries.conf", "[[registry]]\nlocation = \""+reg.Host()+"\"\ninsecure = true\n")
		}, map[string]string{"*": ""}},
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestPullCredentialsAndTrust(t *testing.T) {
	for _, p := range []string{"2023.12", "2024.6", "2025.7", "2026.2"} {
		for _, c := range authCases() {
			t.Run(p+"/"+c.name, func(t *testing.T) {
				n := newTestNode(t, InitialOS{ImageRef: img1.Ref, Profile: p})
				if err := os.Remove(filepath.Join(n.Root, "etc", "ostree", "auth.json")); err != nil {
					t.Fatal(err)
				}
				c.setup(t, n)
				want, ok := c.want[p]
				if !ok {
					want = c.want["*"]
				}
				r := n.rpmOstree("rebase", "--lock-finalization", refspec(img2))
				if want == "" {
					if r.code != 0 {
						t.Fatalf("rebase failed: %s", r.stderr)
					}
					if d, _, err := n.Staged(); err != nil || d == nil || d.ImageDigest != img2.Digest {
						t.Fatalf("staged %+v %v, want %s", d, err, img2.Digest)
					}
					return
				}
				if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.HasPrefix(r.stderr, "error: ") {
					t.Fatalf("rebase: exit %d stderr %q, want an error with %q", r.code, r.stderr, want)
				}
				if want == errAnonTail && !strings.Contains(r.stderr, errAnonymous) {
					t.Errorf("anonymous refusal %q lacks rpm-ostree's prefix %q", r.stderr, errAnonymous)
				}
				if d, _, _ := n.Staged(); d != nil {
					t.Errorf("a refused pull staged %+v", d)
				}
			})
		}
	}
}
