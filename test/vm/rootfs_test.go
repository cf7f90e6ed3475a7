//go:build vm

package vm_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/vm"
)

// The operator's DaemonSet (openshift/machine-config-operator release-4.21,
// manifests/machineconfigdaemon/daemonset.yaml): the container's command,
// its args as the operator renders them, and its one environment variable
// (NODE_NAME from spec.nodeName). The pod is privileged, hostNetwork and
// hostPID, with the host's / at /rootfs (HostToContainer); vm-pod plays the
// kubelet and the container runtime.
const (
	daemonSetCommand      = "/usr/bin/machine-config-daemon"
	daemonSetPayload      = "4.21.0-tandem-vm"
	daemonSetCipherSuites = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256," +
		"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384," +
		"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"
	daemonSetNamespace      = "openshift-machine-config-operator"
	daemonSetServiceAccount = "machine-config-daemon"
)

var daemonSetArgs = []string{
	"start", "--payload-version=" + daemonSetPayload, "--v=2",
	"--tls-cipher-suites=" + daemonSetCipherSuites, "--tls-min-version=VersionTLS12",
}

// What the VM adds for the operator's way, all of it here. The daemon's
// command line and environment get nothing beyond the DaemonSet's; the
// additions are the node's and the cluster's, standing in for what an
// OpenShift node and cluster have:
//   - the node's kubelet kubeconfig (/etc/kubernetes/kubeconfig), where the
//     daemon reads the API server's address; it names https://localhost:6443,
//     a name the test apiserver's certificate carries, and a socket proxy
//     on the node forwards that port to the host's apiserver (the guest
//     reaches it only at 10.0.2.100);
//   - rpm-ostree on the node's PATH: a wrapper for the double, which finds
//     the node's sysroot through its environment (/etc/tandem/osdouble.env);
//   - the pod's service account token, from the apiserver's TokenRequest for
//     the machine-config-daemon service account bound to tandem's own
//     ClusterRole (manifests/rbac/machine-config-daemon.yaml);
//   - a drop-in that makes machine-config-daemon.service run the pod
//     (vm-pod) instead of the daemon in the host's root; removed after the
//     scenario.
const (
	podDropIn       = "/etc/systemd/system/machine-config-daemon.service.d/50-operator-daemonset.conf"
	podSecretsDir   = "pod-secrets" // under the share's etc/
	apiProxyUnit    = "tandem-api-proxy"
	rpmOstreeOnPath = "/usr/local/bin/rpm-ostree"
)

func podSetupScript(nodeName string) string {
	guestSecrets := "/opt/tandem/etc/" + podSecretsDir
	exec := fmt.Sprintf("/opt/tandem/bin/vm-pod -binary /opt/tandem/bin/machine-config-daemon -secrets %s -env NODE_NAME=%s -- %s %s",
		guestSecrets, nodeName, daemonSetCommand, strings.Join(daemonSetArgs, " "))
	return `set -e
test -x /lib/systemd/systemd-socket-proxyd
mkdir -p /etc/kubernetes ` + filepath.Dir(podDropIn) + `
cat > /etc/kubernetes/kubeconfig <<'EOF'
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "https://localhost:` + fmt.Sprint(guestAPIPort) + `"}
contexts:
- name: kubelet
  context: {cluster: local, user: kubelet}
current-context: kubelet
users:
- name: kubelet
  user: {}
EOF
cat > /etc/systemd/system/` + apiProxyUnit + `.socket <<'EOF'
[Socket]
ListenStream=127.0.0.1:` + fmt.Sprint(guestAPIPort) + `
[Install]
WantedBy=sockets.target
EOF
cat > /etc/systemd/system/` + apiProxyUnit + `.service <<'EOF'
[Service]
ExecStart=/lib/systemd/systemd-socket-proxyd ` + fmt.Sprintf("%s:%d", vm.GuestHostAddr, guestAPIPort) + `
EOF
cat > ` + rpmOstreeOnPath + ` <<'EOF'
#!/bin/sh
set -a
. /etc/tandem/osdouble.env
exec /opt/tandem/bin/rpm-ostree "$@"
EOF
chmod 755 ` + rpmOstreeOnPath + `
cat > ` + podDropIn + ` <<'EOF'
# The operator's DaemonSet pod (test/vm/rootfs_test.go).
[Service]
EnvironmentFile=
ExecStart=
ExecStart=` + exec + `
EOF
sync
systemctl daemon-reload
systemctl enable --now ` + apiProxyUnit + `.socket
systemctl restart machine-config-daemon
`
}

const podTeardownScript = `rm -f ` + podDropIn + ` ` + rpmOstreeOnPath + ` /etc/kubernetes/kubeconfig
systemctl disable --now ` + apiProxyUnit + `.socket ` + apiProxyUnit + `.service || true
rm -f /etc/systemd/system/` + apiProxyUnit + `.socket /etc/systemd/system/` + apiProxyUnit + `.service
sync
systemctl daemon-reload
systemctl restart machine-config-daemon
`

// operatorDaemonSet is scenario 8: the daemon runs as the operator's
// DaemonSet runs it, in a pod whose root holds nothing but its binary, with
// the host's / at /rootfs, the DaemonSet's args and the in-cluster service
// account. It must work in the host's root (rpm-ostree, systemd over the
// host's D-Bus, the host's files): stage R, be granted, reboot into it and
// verify, as scenario 1 does. The daemon's own process must be seen running
// the operator's way before and after the reboot.
func (s *suite) operatorDaemonSet(ctx context.Context, t *testing.T) error {
	w, r := s.w, s.cfgs["r"]
	n := w.node
	if err := w.podSecrets(ctx); err != nil {
		return err
	}
	if out, err := n.Sh(ctx, 2*time.Minute, podSetupScript(nodeName)); err != nil {
		return fmt.Errorf("setting up the operator's pod on the node: %w\n%s", err, out)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if out, err := n.Sh(ctx, 2*time.Minute, podTeardownScript); err != nil {
			t.Logf("removing the operator's pod from the node: %v\n%s", err, out)
		}
	})
	if err := s.waitPodDaemon(ctx, "before the update"); err != nil {
		return err
	}
	w.annotate(ctx, map[string]string{constants.StageConfigAnnotation: r.name})
	if err := s.waitStaged(ctx, r); err != nil {
		return err
	}
	if err := s.requireBooted(ctx, s.current, "after staging, before the grant"); err != nil {
		return err
	}
	if err := s.grantAndReboot(ctx, r); err != nil {
		return err
	}
	if err := s.waitPodDaemon(ctx, "after the reboot"); err != nil {
		return err
	}
	fmt.Println("node-duties-rootfs: rootfs=ok")
	return nil
}

// podSecrets lays the pod's service account files on the share: a token
// the apiserver issued for the daemon's service account (bound to tandem's
// ClusterRole), the apiserver's CA and the namespace.
func (w *world) podSecrets(ctx context.Context) error {
	if err := framework.ApplyManifest(ctx, w.cp.Kube, "manifests/rbac/machine-config-daemon.yaml"); err != nil {
		return err
	}
	exp := int64(3 * 3600)
	tr, err := w.cp.Kube.CoreV1().ServiceAccounts(daemonSetNamespace).CreateToken(ctx, daemonSetServiceAccount,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for the daemon's service account: %w", err)
	}
	dir := filepath.Join(w.node.Share, "etc", podSecretsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, content := range map[string][]byte{
		"token": []byte(tr.Status.Token), "ca.crt": w.cp.RESTConfig.CAData, "namespace": []byte(daemonSetNamespace),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// waitPodDaemon waits until machine-config-daemon.service's main process
// is the daemon the pod re-executed in the host's root: its command line is
// the DaemonSet's args after the binary the daemon copied into its tmpfs, with
// the --root-mount=/ the re-exec adds, and it lives in another mount
// namespace than the host's.
func (s *suite) waitPodDaemon(ctx context.Context, when string) error {
	const script = `pid=$(systemctl show -p MainPID --value machine-config-daemon)
echo "ns_host=$(readlink /proc/1/ns/mnt) ns_daemon=$(readlink /proc/$pid/ns/mnt)"
tr '\0' ' ' < /proc/$pid/cmdline; echo`
	want := strings.Join(append(append([]string{"/run/machine-config-daemon-pod/bin/machine-config-daemon"}, daemonSetArgs...), "--root-mount=/"), " ")
	deadline := time.Now().Add(5 * time.Minute)
	last := ""
	for time.Now().Before(deadline) {
		out, err := s.w.node.Sh(ctx, time.Minute, script)
		if err != nil {
			last = err.Error()
		} else {
			lines := strings.SplitN(strings.TrimSpace(out), "\n", 2)
			last = out
			if len(lines) == 2 && strings.TrimSpace(lines[1]) == want {
				var host, daemon string
				_, _ = fmt.Sscanf(lines[0], "ns_host=%s ns_daemon=%s", &host, &daemon)
				if host != "" && daemon != "" && host != daemon {
					s.w.logf("vm: %s the daemon runs the operator's way: %s (%s)", when, want, lines[0])
					return nil
				}
			}
		}
		time.Sleep(3 * time.Second)
	}
	journal, _ := s.w.node.Sh(ctx, time.Minute, "journalctl --no-pager -b -o cat -u machine-config-daemon | tail -30")
	return fmt.Errorf("%s: machine-config-daemon.service is not the DaemonSet's daemon re-executed in the host's root within 5m; want %q; last seen:\n%s\njournal:\n%s", when, want, last, journal)
}
