package mcd

import (
	"reflect"
	"testing"
)

// The MCO's re-exec (ReexecuteForTargetRoot, pkg/daemon/daemon.go,
// release-4.21): the binary copied to /run/bin, the same arguments, then
// --root-mount=/.
func TestReexecArgs(t *testing.T) {
	got := reexecArgs("/run/bin/machine-config-daemon",
		[]string{"start", "--payload-version=4.21.0", "--root-mount", "/rootfs", "--kubeconfig=/pod/kc"},
		[]string{"--kubeconfig=/run/machine-config-daemon-pod/kubeconfig"})
	want := []string{"/run/bin/machine-config-daemon", "start", "--payload-version=4.21.0", "--root-mount", "/rootfs",
		"--kubeconfig=/pod/kc", "--root-mount=/", "--kubeconfig=/run/machine-config-daemon-pod/kubeconfig"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// The later flags win: the re-executed daemon runs in the root with the
	// kubeconfig it can reach.
	cmd, rest, err := New().Find(got[1:])
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatal(err)
	}
	if v := cmd.Flags().Lookup("root-mount").Value.String(); v != "/" {
		t.Errorf("--root-mount = %q, want /", v)
	}
	if v := cmd.Flags().Lookup("kubeconfig").Value.String(); v != "/run/machine-config-daemon-pod/kubeconfig" {
		t.Errorf("--kubeconfig = %q", v)
	}
}

// Hosts the MCO's PersistNetworkInterfaces acts on (osrelease IsEL8/9/10,
// getOSVersion; release-4.21).
func TestELMajor(t *testing.T) {
	cases := []struct{ osRelease, want string }{
		{"ID=\"rhcos\"\nID_LIKE=\"rhel fedora\"\nVERSION_ID=\"4.21\"\nRHEL_VERSION=\"9.6\"\n", "9"},
		{"ID=\"rhcos\"\nVERSION_ID=\"4.21\"\nRHEL_VERSION=\"10.1\"\n", "10"},
		{"ID=scos\nVERSION_ID=\"8.6\"\n", "8"},
		{"ID=rhel\nVARIANT_ID=coreos\nVERSION_ID=9.4\n", "9"},
		{"ID=rhel\nVERSION_ID=9.4\n", ""},
		{"ID=fedora\nVARIANT_ID=coreos\nVERSION_ID=41\n", ""},
		{"ID=debian\nVERSION_ID=\"12\"\n", ""},
		{"ID=centos\nVERSION_ID=\"9\"\n", "9"},
	}
	for _, c := range cases {
		if got := elMajor(c.osRelease); got != c.want {
			t.Errorf("elMajor(%q) = %q, want %q", c.osRelease, got, c.want)
		}
	}
}
