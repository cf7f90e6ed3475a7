// Command podns runs a pod's container process, as a host process, with the
// files a kubelet mounts in the pod: in a mount namespace of its own, it
// bind-mounts a directory holding kubernetes.io/serviceaccount/{token,
// ca.crt,namespace} over /var/run/secrets, and each -v HOST:TARGET (a
// Secret volume at the pod's mount path), then execs the command.
// client-go's in-cluster config (rest.InClusterConfig) then reads the pod's
// own token there, each process of the world has its own identity, and a
// program that reads a fixed path (the machine-config-server's
// /etc/mcs/bootstrap-token) finds its pod's volume.
//
// Usage: podns [-scratch DIR] [-v HOST:TARGET]... SECRETS_DIR -- COMMAND [ARG...]
//
// SECRETS_DIR "-" mounts no service account (a static pod). A -v HOST may
// be a file (a hostPath volume of one file).
//
// A -v target the host lacks is made inside the namespace only: its
// nearest existing parent gets an overlay whose upper layer is a tmpfs at
// -scratch, so the host's /etc never gains a directory. The host gets an
// empty /var/run/secrets directory (the mount point) if it has none; the
// mounts are private to the process and die with it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

const mountPoint = "/var/run/secrets"

// noSecrets as SECRETS_DIR: a pod without a service account (a static pod
// of the installer's bootstrap node).
const noSecrets = "-"

type volume struct{ host, target string }

type volumes []volume

func (v *volumes) String() string { return fmt.Sprint(*v) }
func (v *volumes) Set(s string) error {
	host, target, ok := strings.Cut(s, ":")
	if !ok || !filepath.IsAbs(host) || !filepath.IsAbs(target) {
		return fmt.Errorf("-v %q: want HOST:TARGET, both absolute", s)
	}
	*v = append(*v, volume{filepath.Clean(host), filepath.Clean(target)})
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "podns: %v\n", err)
		os.Exit(127)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("podns", flag.ContinueOnError)
	scratch := fs.String("scratch", "", "a directory for the overlays' upper layers (needed when a -v target is missing)")
	var vols volumes
	fs.Var(&vols, "v", "HOST:TARGET, a directory to bind-mount at TARGET (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	args = fs.Args()
	if len(args) < 3 || args[1] != "--" {
		return errors.New("usage: podns [-scratch DIR] [-v HOST:TARGET]... SECRETS_DIR -- COMMAND [ARG...]")
	}
	secrets, argv := args[0], args[2:]
	if secrets != noSecrets {
		if _, err := os.Stat(secrets + "/kubernetes.io/serviceaccount/token"); err != nil {
			return fmt.Errorf("no service account token in %s: %w", secrets, err)
		}
	}
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	// A mount namespace belongs to the thread that unshares it, up to the
	// exec: everything below runs on this one.
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare: %w", err)
	}
	// Nothing mounted here may reach the host's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %w", err)
	}
	if secrets != noSecrets {
		if err := os.MkdirAll(mountPoint, 0o755); err != nil {
			return err
		}
		if err := bind(secrets, mountPoint); err != nil {
			return err
		}
	}
	if err := makeTargets(vols, *scratch); err != nil {
		return err
	}
	for _, v := range vols {
		if err := bind(v.host, v.target); err != nil {
			return err
		}
	}
	return unix.Exec(bin, argv, os.Environ())
}

func bind(host, target string) error {
	if err := unix.Mount(host, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind-mounting %s on %s: %w", host, target, err)
	}
	return nil
}

// makeTargets makes the missing targets inside the namespace: the nearest
// existing parent of each gets an overlay (one per parent; a parent under
// another overlaid one needs none, and would hide it), then the targets
// are made in the overlays' upper layers.
func makeTargets(vols volumes, scratch string) error {
	var parents []string
	for _, v := range vols {
		if _, err := os.Stat(v.target); err == nil {
			continue
		}
		p := v.target
		for {
			p = filepath.Dir(p)
			if _, err := os.Stat(p); err == nil {
				break
			}
		}
		parents = append(parents, p)
	}
	if len(parents) == 0 {
		return nil
	}
	if scratch == "" {
		return fmt.Errorf("the targets' parents %v lack the mount points: give -scratch", parents)
	}
	slices.Sort(parents)
	parents = slices.Compact(parents)
	if err := unix.Mount("tmpfs", scratch, "tmpfs", 0, "mode=0700"); err != nil {
		return fmt.Errorf("tmpfs on %s: %w", scratch, err)
	}
	var done []string
	for i, p := range parents {
		if slices.ContainsFunc(done, func(d string) bool { return d == "/" || strings.HasPrefix(p, d+"/") }) {
			continue
		}
		upper, work := filepath.Join(scratch, fmt.Sprint(i), "upper"), filepath.Join(scratch, fmt.Sprint(i), "work")
		for _, d := range []string{upper, work} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		opts := "lowerdir=" + p + ",upperdir=" + upper + ",workdir=" + work
		if err := unix.Mount("overlay", p, "overlay", 0, opts); err != nil {
			return fmt.Errorf("overlay on %s: %w", p, err)
		}
		done = append(done, p)
	}
	for _, v := range vols {
		if _, err := os.Stat(v.target); err == nil {
			continue
		}
		if err := makeTarget(v); err != nil {
			return fmt.Errorf("making %s in the overlay: %w", v.target, err)
		}
	}
	return nil
}

// makeTarget makes a mount point of the host's kind: a directory, or an
// empty file for a file (a hostPath volume of one file).
func makeTarget(v volume) error {
	fi, err := os.Stat(v.host)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return os.MkdirAll(v.target, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(v.target), 0o755); err != nil {
		return err
	}
	return os.WriteFile(v.target, nil, 0o644)
}
