package mcd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// The MCO's daemon runs in a pod with the host's / at /rootfs and works in
// the host's root by chrooting into it and re-executing itself
// (openshift/machine-config-operator release-4.21, pkg/daemon/daemon.go
// PrepareNamespace and ReexecuteForTargetRoot, called from
// cmd/machine-config-daemon/start.go and firstboot_complete_machineconfig.go).
// The paths and the guard are the MCO's.
const (
	// reexecEnv marks the process that already runs in the target root
	// (the MCO's "belt and suspenders" beside --root-mount=/).
	reexecEnv = "_MCD_DID_REEXEC"
	// podSecretsDir holds the pod's service account token and CA; it is
	// bound to the same path in the target so that the in-cluster config
	// still works after the chroot.
	podSecretsDir = "/run/secrets"
	// podOnlyDir (tandem) is a tmpfs mounted in the daemon's own mount
	// namespace under the target's /run: what the daemon brings from its
	// pod besides the secrets (its binary, a --kubeconfig), reachable after
	// the chroot and visible to nobody else.
	podOnlyDir = "/run/machine-config-daemon-pod"
	// reexecBinary is where the daemon's own binary is copied in the
	// target. The MCO copies it to the host's /run/bin; tandem keeps it in
	// podOnlyDir: a host whose /run is mounted noexec (Debian's initramfs
	// does) or small (its 10% of memory held the binary only once) failed
	// the MCO's way in the VM node, and each daemon's copy goes with its
	// mount namespace instead of staying in the host's /run.
	reexecBinary = podOnlyDir + "/bin/machine-config-daemon"
)

// enterRootMount makes the host's root at dir the daemon's root, as the
// MCO's daemon does in its DaemonSet (the host's / at /rootfs): in a mount
// namespace of its own it binds the pod's secrets into dir, copies its
// binary into dir (see reexecBinary), chroots into dir and re-executes itself there with
// --root-mount=/. A --kubeconfig path names a file of the pod: it is read
// (with the certificate and token files it names) before the chroot and
// handed to the new process inside the target. On success it does not
// return.
func enterRootMount(dir, kubeconfig string) error {
	if dir == "/" || os.Getenv(reexecEnv) != "" {
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--root-mount=%s: not a directory (the host's root must be mounted there; pass --root-mount=/ when the daemon runs in the host's root): %v", dir, err)
	}
	// Mount namespaces and the root directory belong to a thread until the
	// exec: every step below, and the exec, run on this one.
	runtime.LockOSThread()
	if err := privateMountNamespace(); err != nil {
		return err
	}
	if err := bindPodSecrets(dir); err != nil {
		return err
	}
	if err := mountPodOnly(dir); err != nil {
		return err
	}
	var extra []string
	if kubeconfig != "" {
		inTarget, err := carryKubeconfig(dir, kubeconfig)
		if err != nil {
			return err
		}
		extra = append(extra, "--kubeconfig="+inTarget)
	}
	if err := copySelf(filepath.Join(dir, reexecBinary)); err != nil {
		return err
	}
	if err := unix.Chroot(dir); err != nil {
		return fmt.Errorf("chroot %s: %w", dir, err)
	}
	if err := os.Chdir("/"); err != nil {
		return fmt.Errorf("chdir / in %s: %w", dir, err)
	}
	argv := reexecArgs(reexecBinary, os.Args[1:], extra)
	klog.InfoS("Re-executing in the host's root", "rootMount", dir, "binary", reexecBinary)
	klog.Flush()
	return fmt.Errorf("re-executing %s in %s: %w", reexecBinary, dir, unix.Exec(reexecBinary, argv, append(os.Environ(), reexecEnv+"=1")))
}

// reexecArgs is the command line of the re-executed daemon: the same
// subcommand and flags, then --root-mount=/ (the MCO's) and the flags
// rewritten for the target (a later flag wins).
func reexecArgs(binary string, args, extra []string) []string {
	out := append([]string{binary}, args...)
	out = append(out, "--root-mount=/")
	return append(out, extra...)
}

// privateMountNamespace gives this thread a mount namespace of its own
// whose mounts are slaves of the one it came from: the host's later mounts
// still reach the daemon (the DaemonSet's HostToContainer), and nothing
// mounted here reaches the host or the pod. In the pod this is a second
// namespace under the container's; run as a host process it keeps the
// binds below off the host.
func privateMountNamespace() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare of the mount namespace: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making the mounts slaves of the host's: %w", err)
	}
	return nil
}

// bindPodSecrets binds the pod's /run/secrets (the service account token
// the in-cluster config reads) to the same path in the target, as the MCO's
// PrepareNamespace does. A daemon without them (run with --kubeconfig
// outside a pod) has nothing to bind.
func bindPodSecrets(dir string) error {
	if _, err := os.Stat(podSecretsDir); errors.Is(err, os.ErrNotExist) {
		klog.InfoS("No pod secrets to carry into the host's root", "dir", podSecretsDir)
		return nil
	}
	target := filepath.Join(dir, podSecretsDir)
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	if err := unix.Mount(podSecretsDir, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding %s to %s: %w", podSecretsDir, target, err)
	}
	return nil
}

// mountPodOnly mounts podOnlyDir's tmpfs in the target.
func mountPodOnly(dir string) error {
	mnt := filepath.Join(dir, podOnlyDir)
	if err := os.MkdirAll(mnt, 0o700); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", mnt, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0700"); err != nil {
		return fmt.Errorf("mounting a tmpfs at %s: %w", mnt, err)
	}
	return nil
}

// carryKubeconfig writes the kubeconfig at path, with the files it names
// read into it, to podOnlyDir, and returns its path as seen after the
// chroot.
func carryKubeconfig(dir, path string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return "", fmt.Errorf("--kubeconfig=%s: %w", path, err)
	}
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		return "", fmt.Errorf("--kubeconfig=%s: %w", path, err)
	}
	for name, a := range cfg.AuthInfos {
		if a.TokenFile == "" {
			continue
		}
		tok, err := os.ReadFile(a.TokenFile)
		if err != nil {
			return "", fmt.Errorf("--kubeconfig=%s: user %s: %w", path, name, err)
		}
		a.Token, a.TokenFile = string(tok), ""
	}
	if err := clientcmdapi.FlattenConfig(cfg); err != nil {
		return "", fmt.Errorf("--kubeconfig=%s: %w", path, err)
	}
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return "", err
	}
	if err := files.WriteFileAtomic(filepath.Join(dir, podOnlyDir, "kubeconfig"), b, 0o600, -1, -1); err != nil {
		return "", err
	}
	return filepath.Join(podOnlyDir, "kubeconfig"), nil
}

// copySelf copies the running binary to dst (atomically, mode 0755), as the
// MCO copies its own into the target.
func copySelf(dst string) error {
	src, err := os.Open("/proc/self/exe")
	if err != nil {
		return fmt.Errorf("opening the daemon's binary: %w", err)
	}
	defer src.Close()
	if err := files.CopyAtomic(dst, src, 0o755); err != nil {
		return fmt.Errorf("copying the daemon's binary to %s: %w", dst, err)
	}
	return nil
}
