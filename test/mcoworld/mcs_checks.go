package mcoworld

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/vincent-petithory/dataurl"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tandem-mco/tandem/test/pki"
)

// What the machine-config-server adds to a pool's rendered config when it
// serves a new machine (pkg/server/cluster_server.go GetConfig and
// pkg/server/server.go's appenders, release-4.21): the kubelet's
// bootstrap kubeconfig, the encapsulated config, the initial node
// annotations; and files whose contents it refreshes from the
// ControllerConfig (the kubelet CA, the cloud provider CA).
const (
	mcsKubeconfigPath   = "/etc/kubernetes/kubeconfig"
	mcsKubeletCAPath    = "/etc/kubernetes/kubelet-ca.crt"
	mcsCloudProviderCA  = "/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem"
	mcsAdditionalCAPath = "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt"
)

// IgnitionFiles are the files of an Ignition config, path -> contents.
func IgnitionFiles(raw []byte) (map[string][]byte, error) {
	cfg, _, err := ign3.ParseCompatibleVersion(raw)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, f := range cfg.Storage.Files {
		data, err := ignitionContents(f.Contents)
		if err != nil {
			return nil, fmt.Errorf("file %s: %w", f.Path, err)
		}
		out[f.Path] = data
	}
	return out, nil
}

// CheckMCSIgnition judges what each joined worker was served against the
// server's contract: every file of the config its node annotations name,
// unchanged (but the CA files the server refreshes); the node annotations
// naming that config as current and desired, state Done; the bootstrap
// kubeconfig pointing at the API's internal URL with the
// node-bootstrapper-token's token. It returns how many workers joined.
func (w *World) CheckMCSIgnition(ctx context.Context) (int, error) {
	joined := w.Joined()
	if len(joined) != len(w.opts.Workers) {
		return len(joined), fmt.Errorf("%d of %d workers joined through the machine-config-server", len(joined), len(w.opts.Workers))
	}
	infra, err := w.Config.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	tok, err := w.CP.Kube.CoreV1().Secrets(Namespace).Get(ctx, "node-bootstrapper-token", metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	for _, node := range slices.Sorted(maps.Keys(joined)) {
		if err := w.checkServed(ctx, node, joined[node], infra.Status.APIServerInternalURL, string(tok.Data["token"])); err != nil {
			return len(joined), fmt.Errorf("%s: %w", node, err)
		}
	}
	return len(joined), nil
}

func (w *World) checkServed(ctx context.Context, node string, served []byte, apiURL, token string) error {
	name, err := ServedConfigName(served)
	if err != nil {
		return err
	}
	rendered, err := w.CP.MCO.MachineconfigurationV1().MachineConfigs().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if err := ServedFrom(served, name, rendered.Spec.Config.Raw); err != nil {
		return err
	}
	files, err := IgnitionFiles(served)
	if err != nil {
		return err
	}
	kc, err := clientcmd.Load(files[mcsKubeconfigPath])
	if err != nil {
		return fmt.Errorf("%s: %w", mcsKubeconfigPath, err)
	}
	for _, c := range kc.Clusters {
		if c.Server != apiURL {
			return fmt.Errorf("%s names server %s, want the API's internal URL %s", mcsKubeconfigPath, c.Server, apiURL)
		}
	}
	for _, a := range kc.AuthInfos {
		if token == "" || a.Token != token {
			return fmt.Errorf("%s does not carry the node-bootstrapper-token's token", mcsKubeconfigPath)
		}
	}
	// Laid as served: the node's root has the kubeconfig.
	laid, err := os.ReadFile(filepath.Join(w.opts.Dir, "nodes", node, "root", mcsKubeconfigPath))
	if err != nil || string(laid) != string(files[mcsKubeconfigPath]) {
		return fmt.Errorf("the node's %s is not what was served (%v)", mcsKubeconfigPath, err)
	}
	return nil
}

// ServedConfigName is the rendered config a served Ignition says the node
// boots (its initial node annotations).
func ServedConfigName(served []byte) (string, error) {
	files, err := IgnitionFiles(served)
	if err != nil {
		return "", err
	}
	var ann map[string]string
	if err := json.Unmarshal(files[nodeAnnotationsPath], &ann); err != nil {
		return "", fmt.Errorf("%s: %w", nodeAnnotationsPath, err)
	}
	name := ann["machineconfiguration.openshift.io/currentConfig"]
	if name == "" || ann["machineconfiguration.openshift.io/desiredConfig"] != name || ann["machineconfiguration.openshift.io/state"] != "Done" {
		return "", fmt.Errorf("node annotations %v: want current = desired, state Done", ann)
	}
	return name, nil
}

// ServedFrom checks a served Ignition against the rendered config name
// (its Ignition rendered): every file of it, unchanged but the CA files the
// server refreshes, and the encapsulated config.
func ServedFrom(served []byte, name string, rendered []byte) error {
	files, err := IgnitionFiles(served)
	if err != nil {
		return err
	}
	want, err := IgnitionFiles(rendered)
	if err != nil {
		return err
	}
	refreshed := []string{mcsKubeletCAPath, mcsCloudProviderCA, mcsAdditionalCAPath}
	for p, c := range want {
		if slices.Contains(refreshed, p) {
			continue
		}
		got, ok := files[p]
		if !ok {
			return fmt.Errorf("served no %s of %s", p, name)
		}
		if string(got) != string(c) {
			return fmt.Errorf("served %s unlike %s's", p, name)
		}
	}
	if _, ok := files[encapsulatedPath]; !ok {
		return fmt.Errorf("served no %s", encapsulatedPath)
	}
	if _, ok := files[mcsKubeconfigPath]; !ok {
		return fmt.Errorf("served no %s", mcsKubeconfigPath)
	}
	return nil
}

// MCSRefusals are what a first boot does when the server cannot be
// trusted or reached: each must fail the fetch and lay nothing.
type MCSRefusals struct {
	// BadCert: the pointer trusts another CA than the one that signed the
	// server's certificate.
	BadCert error
	// Down: no server answers (the fetch retries until its bound).
	Down error
}

// CheckMCSRefusals runs a first boot with the worker pool's pointer config
// against a server whose certificate the pointer does not trust, and with
// no server up, each into an empty root: each must fail and leave the
// root empty. A nil field is a case that behaved.
func (w *World) CheckMCSRefusals(ctx context.Context) (MCSRefusals, error) {
	s, err := w.CP.Kube.CoreV1().Secrets("openshift-machine-api").Get(ctx, "worker-user-data-managed", metav1.GetOptions{})
	if err != nil {
		return MCSRefusals{}, err
	}
	pointer := s.Data["userData"]
	other, err := pki.NewCA("not-the-root-ca")
	if err != nil {
		return MCSRefusals{}, err
	}
	badCA := strings.Replace(string(pointer), dataURL(w.pki.RootCA), dataURL(other.CertPEM), 1)
	if badCA == string(pointer) {
		return MCSRefusals{}, fmt.Errorf("the pointer config does not carry the installer's root CA as a data URL")
	}
	var r MCSRefusals
	r.BadCert = w.refusedFirstBoot(ctx, []byte(badCA), w.dialMCS, "x509", "bad-cert")
	down := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, fmt.Errorf("dial %s: no machine-config-server runs", addr)
	}
	r.Down = w.refusedFirstBoot(ctx, pointer, down, "no machine-config-server runs", "mcs-down")
	return r, nil
}

// refusedFirstBoot is nil when a first boot with pointer and dial fails,
// within a short bound, saying want, and lays nothing.
func (w *World) refusedFirstBoot(ctx context.Context, pointer []byte, dial DialFunc, want, name string) error {
	root := filepath.Join(w.opts.Dir, "refusals", name)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := w.firstBoot(fctx, pointer, dial, root)
	if err == nil || !strings.Contains(err.Error(), want) {
		return fmt.Errorf("first boot: %v, want a failure saying %q", err, want)
	}
	if ents, rerr := os.ReadDir(root); rerr != nil || len(ents) > 0 {
		return fmt.Errorf("a failed first boot laid %d entries (%v)", len(ents), rerr)
	}
	return nil
}

// dataURL is how the operator puts a CA in the pointer config
// (ctrlcommon.PointerConfig, release-4.21: dataurl.EncodeBytes).
func dataURL(b []byte) string {
	return dataurl.EncodeBytes(b)
}
