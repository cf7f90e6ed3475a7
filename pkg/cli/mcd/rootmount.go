package mcd

import "fmt"

// enterRootMount makes the host's root at dir the daemon's root, as the
// MCO's daemon does in its DaemonSet (the host's / at /rootfs).
func enterRootMount(dir string) error {
	return fmt.Errorf("--root-mount=%s: running against the host's root through a mount is not implemented yet; pass --root-mount=/ when the daemon runs in the host's root", dir)
}
