package osdouble

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// pullEnv is what a pull sees of the node: where its /etc and /usr are (the
// node's root; "" when the node has none), its /run, and the credentials
// ostree-ext hands the container stack.
type pullEnv struct {
	root string
	run  string
	// authFile is the auth file found (a path on this machine); "" pulls
	// anonymously.
	authFile string
}

// authFileCandidates are where ostree-ext looks for the global auth file,
// in order, when rpm-ostree runs as root: ostree-ext lib/src/globals.rs
// get_config_paths and ConfigPaths::open_file (ostree-rs-ext tags
// ostree-ext-v0.12.8 and ostree-ext-v0.13.4, pinned by rpm-ostree v2023.12
// and v2024.6; containers/bootc ostree-ext/src/globals.rs, unchanged from
// 9309167b to the snapshot's HEAD, for the 0.15.3 that v2025.7 and v2026.2
// pin): /run/ostree, /etc/ostree, then (0.13 on) /usr/lib/ostree. Nothing
// else is read: container/mod.rs merge_default_container_proxy_opts sets
// auth_anonymous when none exists, "to ensure that the container stack
// doesn't try to find it in the standard container paths".
func authFileCandidates(p Profile) []string {
	c := []string{"/run/ostree/auth.json", "/etc/ostree/auth.json"}
	if p.UsrLibAuth {
		c = append(c, "/usr/lib/ostree/auth.json")
	}
	return c
}

// nodePath is where a path of the node (absolute) is on this machine: /run
// is the node's run dir, the rest is under its root; "" when the node has
// no root.
func (e pullEnv) nodePath(p string) string {
	p = path.Clean(p)
	if p == "/run" || strings.HasPrefix(p, "/run/") {
		return filepath.Join(e.run, strings.TrimPrefix(p, "/run"))
	}
	if e.root == "" {
		return ""
	}
	return filepath.Join(e.root, p)
}

// findAuthFile returns the first candidate that opens, following symlinks
// the way the node resolves them: an absolute target is a path of the node
// (ostree-ext 0.15 opens through cap-std-ext's RootDir, containers/bootc
// commit 7747f3a9 "config: Fix absolute symlinks"; before, the ambient
// open of a root process reads the host's own tree, which the node's root
// is). A candidate that does not exist, or whose link dangles, is skipped;
// any other error fails the pull.
func findAuthFile(e pullEnv, p Profile) (string, error) {
	for _, c := range authFileCandidates(p) {
		real, err := e.resolve(c)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		f, err := os.Open(real)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("opening %s: %w", c, err)
		}
		_ = f.Close()
		return real, nil
	}
	return "", nil
}

// resolve follows the symlinks of the node path p (every component) and
// returns the file's path on this machine.
func (e pullEnv) resolve(p string) (string, error) {
	const maxLinks = 40 // Linux's MAXSYMLINKS
	links := 0
	rest := strings.Split(strings.TrimPrefix(path.Clean(p), "/"), "/")
	done := "/"
	for len(rest) > 0 {
		next := path.Join(done, rest[0])
		rest = rest[1:]
		host := e.nodePath(next)
		if host == "" {
			return "", fs.ErrNotExist
		}
		fi, err := os.Lstat(host)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", p)
		}
		target, err := os.Readlink(host)
		if err != nil {
			return "", err
		}
		if !path.IsAbs(target) {
			target = path.Join(done, target)
		}
		rest = append(strings.Split(strings.TrimPrefix(path.Clean(target), "/"), "/"), rest...)
		done = "/"
	}
	return e.nodePath(done), nil
}
