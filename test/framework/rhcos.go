package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RHCOS96OSRelease is /usr/lib/os-release as RHCOS 9.6 of OpenShift 4.21
// writes it (the 4.19+ scheme: VERSION_ID is the RHEL version, the
// OpenShift release is in OPENSHIFT_VERSION). A simulated node given it
// is an EL 9 CoreOS host to the MCO's checks (its first boot pins the
// NICs: the MCO's PersistNetworkInterfaces).
const RHCOS96OSRelease = `NAME="Red Hat Enterprise Linux CoreOS"
ID="rhcos"
ID_LIKE="rhel fedora"
VERSION="9.6.20251023-0 (Plow)"
VERSION_ID="9.6"
VARIANT="CoreOS"
VARIANT_ID=coreos
PLATFORM_ID="platform:el9"
PRETTY_NAME="Red Hat Enterprise Linux CoreOS 9.6.20251023-0 (Plow)"
OPENSHIFT_VERSION="4.21"
RHEL_VERSION=9.6
OSTREE_VERSION="9.6.20251023-0"
`

// CheckNICsPinned checks what the first line of the firstboot unit did on
// an EL 9 host (the MCO's PersistNetworkInterfaces, pkg/daemon/daemon.go,
// release-4.21): nmstatectl persist-nic-names ran once, with the MCO's
// arguments, on the host's root, and each of nics ("name=mac,...") has
// the link file nmstate writes (nmstate v2.2.37 rust/src/cli/persist_nic.rs).
func (n *SimNode) CheckNICsPinned(nics string) error {
	b, err := os.ReadFile(n.NmstatectlLog())
	if err != nil {
		return fmt.Errorf("%s: nmstatectl never ran: %w", n.Name, err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "persist-nic-names --root "+n.Root+" --kargs-out ") {
		return fmt.Errorf("%s: nmstatectl ran with %q, want once: persist-nic-names --root %s --kargs-out FILE", n.Name, lines, n.Root)
	}
	for _, nic := range strings.Split(nics, ",") {
		name, mac, _ := strings.Cut(nic, "=")
		link, err := os.ReadFile(filepath.Join(n.Root, "etc/systemd/network/98-nmstate-"+name+".link"))
		if err != nil || !strings.Contains(string(link), "MACAddress="+mac+"\n") || !strings.Contains(string(link), "Name="+name+"\n") {
			return fmt.Errorf("%s: %s's link file: %q (%v)", n.Name, name, link, err)
		}
	}
	return nil
}
