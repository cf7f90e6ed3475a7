// Command podns runs a pod's container process, as a host process, with the
// service account files a kubelet mounts in every pod: in a mount namespace
// of its own, it bind-mounts a directory holding
// kubernetes.io/serviceaccount/{token,ca.crt,namespace} over
// /var/run/secrets, then execs the command. client-go's in-cluster config
// (rest.InClusterConfig) then reads the pod's own token there, and each
// process of the world has its own identity.
//
// Usage: podns SECRETS_DIR -- COMMAND [ARG...]
//
// The host gets an empty /var/run/secrets directory (the mount point) if it
// has none; the mounts are private to the process and die with it.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

const mountPoint = "/var/run/secrets"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "podns: %v\n", err)
		os.Exit(127)
	}
}

func run(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("usage: podns SECRETS_DIR -- COMMAND [ARG...]")
	}
	secrets, argv := args[0], args[2:]
	if _, err := os.Stat(secrets + "/kubernetes.io/serviceaccount/token"); err != nil {
		return fmt.Errorf("no service account token in %s: %w", secrets, err)
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
	if err := os.MkdirAll(mountPoint, 0o755); err != nil {
		return err
	}
	if err := unix.Mount(secrets, mountPoint, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind-mounting %s on %s: %w", secrets, mountPoint, err)
	}
	return unix.Exec(bin, argv, os.Environ())
}
