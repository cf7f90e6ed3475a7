package framework

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// KubeletPullSecret is where a node keeps the cluster's pull secret, mode
// 0600 (openshift/machine-config-operator release-4.21
// templates/common/_base/files/pull-secret.yaml); the daemon hands it to
// rpm-ostree.
const KubeletPullSecret = kubeletPullSecret

// IgnitionFile is one file of a MachineConfig's Ignition config.
type IgnitionFile struct {
	Path     string
	Contents string
	Mode     int // default 0644
}

// DataURL is an Ignition source carrying s inline.
func DataURL(s string) string {
	return "data:text/plain;charset=utf-8;base64," + base64.StdEncoding.EncodeToString([]byte(s))
}

// MachineConfig is the MachineConfig of role pool named name: the OS image
// and the files, in an Ignition 3.4.0 config.
func MachineConfig(name, pool, osImageURL string, files []IgnitionFile) (*mcfgv1.MachineConfig, error) {
	type contents struct {
		Source string `json:"source"`
	}
	type file struct {
		Path      string   `json:"path"`
		Mode      int      `json:"mode"`
		Overwrite bool     `json:"overwrite"`
		Contents  contents `json:"contents"`
	}
	cfg := map[string]any{"ignition": map[string]string{"version": "3.4.0"}}
	if len(files) > 0 {
		var fs []file
		for _, f := range files {
			mode := f.Mode
			if mode == 0 {
				mode = 0o644
			}
			fs = append(fs, file{Path: f.Path, Mode: mode, Overwrite: true, Contents: contents{Source: DataURL(f.Contents)}})
		}
		cfg["storage"] = map[string]any{"files": fs}
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("MachineConfig %s: %w", name, err)
	}
	return &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{constants.MachineConfigRoleLabel: pool}},
		Spec:       mcfgv1.MachineConfigSpec{OSImageURL: osImageURL, Config: runtime.RawExtension{Raw: raw}},
	}, nil
}

// MachineConfigPool is the pool name selecting the MachineConfigs of its
// role and the nodes labelled node-role.kubernetes.io/<name>. paused keeps
// a planner from planning for nodes that have no currentConfig yet (see
// BootstrapNodeAnnotations).
func MachineConfigPool(name string, maxUnavailable int, paused bool) *mcfgv1.MachineConfigPool {
	mu := intstr.FromInt(maxUnavailable)
	return &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.MachineConfigRoleLabel, name),
			NodeSelector:          metav1.AddLabelToSelector(&metav1.LabelSelector{}, constants.NodeRoleLabelPrefix+name, ""),
			MaxUnavailable:        &mu,
			Paused:                paused,
		},
	}
}

// BootstrapNodePatch is the merge patch that marks a node as running the
// rendered config cfg, Done, as the installer leaves a new cluster's nodes.
func BootstrapNodePatch(cfg string) []byte {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		constants.CurrentConfigAnnotation: cfg,
		constants.DesiredConfigAnnotation: cfg,
		constants.StateAnnotation:         constants.MachineConfigDaemonStateDone,
	}}})
	return patch
}

// UnpausePatch is the merge patch that unpauses a pool.
const UnpausePatch = `{"spec":{"paused":false}}`
