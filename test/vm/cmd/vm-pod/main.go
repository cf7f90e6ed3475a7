// Command vm-pod runs a command the way the kubelet and the container
// runtime run the MCO's machine-config-daemon DaemonSet pod
// (openshift/machine-config-operator release-4.21,
// manifests/machineconfigdaemon/daemonset.yaml): privileged, hostNetwork,
// hostPID, in a mount namespace of its own whose root is the container
// image, with the host's / at /rootfs (a hostPath volume, rbind, mount
// propagation HostToContainer), the service account's token, CA and
// namespace at /var/run/secrets/kubernetes.io/serviceaccount, and the
// environment the pod spec gives it and nothing else.
//
// The image holds only the command's binary at the path the pod's command
// names: no shell, no rpm-ostree, no systemctl, no D-Bus socket. What the
// command needs of the node it must reach through /rootfs.
//
// Usage:
//
//	vm-pod -binary SRC -secrets DIR [-env K=V]... -- /usr/bin/machine-config-daemon ARGS...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

type envList []string

func (e *envList) String() string     { return strings.Join(*e, ",") }
func (e *envList) Set(v string) error { *e = append(*e, v); return nil }

// containerPath is the PATH a container image's config gives it.
const containerPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

func main() {
	binary := flag.String("binary", "", "the file installed at the command's path in the image")
	secrets := flag.String("secrets", "", "directory with the service account's token, ca.crt and namespace")
	var env envList
	flag.Var(&env, "env", "K=V of the container's environment (repeated)")
	flag.Parse()
	argv := flag.Args()
	if *binary == "" || *secrets == "" || len(argv) == 0 || !filepath.IsAbs(argv[0]) {
		fmt.Fprintln(os.Stderr, "usage: vm-pod -binary SRC -secrets DIR [-env K=V]... -- /ABS/COMMAND ARGS...")
		os.Exit(2)
	}
	if err := run(*binary, *secrets, env, argv); err != nil {
		fmt.Fprintln(os.Stderr, "vm-pod:", err)
		os.Exit(1)
	}
}

func run(binary, secrets string, env, argv []string) error {
	// The namespace and the root belong to this thread until the exec.
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare: %w", err)
	}
	// HostToContainer: the host's mounts reach the pod, not the other way.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making / a slave: %w", err)
	}
	root, err := os.MkdirTemp("/run", "vm-pod-root-")
	if err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", root, "tmpfs", 0, "mode=0755"); err != nil {
		return fmt.Errorf("tmpfs for the image: %w", err)
	}
	if err := install(binary, filepath.Join(root, argv[0]), 0o755); err != nil {
		return err
	}
	mounts := []struct {
		src, dst, fstype string
		flags            uintptr
	}{
		{"/", "rootfs", "", unix.MS_BIND | unix.MS_REC},
		{"proc", "proc", "proc", 0},
		{"/dev", "dev", "", unix.MS_BIND | unix.MS_REC},
		{"/sys", "sys", "", unix.MS_BIND | unix.MS_REC},
		{"tmpfs", "run", "tmpfs", 0},
		{"tmpfs", "tmp", "tmpfs", 0},
	}
	for _, m := range mounts {
		dst := filepath.Join(root, m.dst)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		if err := unix.Mount(m.src, dst, m.fstype, m.flags, ""); err != nil {
			return fmt.Errorf("mounting %s at %s: %w", m.src, dst, err)
		}
	}
	sa := filepath.Join(root, "run/secrets/kubernetes.io/serviceaccount")
	for _, f := range []string{"token", "ca.crt", "namespace"} {
		if err := install(filepath.Join(secrets, f), filepath.Join(sa, f), 0o644); err != nil {
			return err
		}
	}
	// As in most images, /var/run is /run.
	if err := os.MkdirAll(filepath.Join(root, "var"), 0o755); err != nil {
		return err
	}
	if err := os.Symlink("../run", filepath.Join(root, "var/run")); err != nil {
		return err
	}
	if err := unix.Chroot(root); err != nil {
		return fmt.Errorf("chroot %s: %w", root, err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	return unix.Exec(argv[0], argv, append([]string{containerPath}, env...))
}

func install(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return out.Close()
}
