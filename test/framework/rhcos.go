package framework

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
