// Package certs is the machine-config-daemon's certificate writer: it lays
// the ControllerConfig's CA bundles and the internal registry's pull secret
// on the node, merges a rotated kube-apiserver serving CA into the node's
// kubeconfig and, when the rotation brings a new signer, re-bootstraps the
// kubelet with it.
//
// The contract is the MCO's (openshift/machine-config-operator release-4.21,
// commit db84d8368ef7, pkg/daemon/certificate_writer.go
// syncControllerConfigHandler, syncInternalRegistryPullSecrets and
// writeToDisk; paths in pkg/daemon/daemon.go and image_manager_helper.go;
// annotations in pkg/daemon/constants/constants.go and
// pkg/controller/common/constants.go). PlanSync is the decision, pure;
// Writer (writer.go) reads the node, performs the plan and annotates.
package certs

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// Host paths the MCO's daemon writes (daemon.go and
// image_manager_helper.go, release-4.21).
const (
	// KubeletCAPath gets spec.kubeAPIServerServingCAData (the kubelet's
	// clientCAFile in the rendered kubelet.conf).
	KubeletCAPath = "/etc/kubernetes/kubelet-ca.crt"
	// CloudCAPath gets spec.cloudProviderCAData.
	CloudCAPath = "/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem"
	// KubeconfigPath is the node's kubeconfig; a service CA rotation
	// replaces its first cluster's certificate-authority-data.
	KubeconfigPath = "/etc/kubernetes/kubeconfig"
	// KubeletKubeconfigPath is the kubelet's own kubeconfig, given the
	// rotated CA when the kubelet is re-bootstrapped.
	KubeletKubeconfigPath = "/var/lib/kubelet/kubeconfig"
	// InternalRegistryPullSecretPath gets spec.internalRegistryPullSecret
	// (rpm-ostree's auth file is linked to it when it is valid JSON,
	// pkg/ostree/pullsecret.go).
	InternalRegistryPullSecretPath = "/etc/mco/internal-registry-pull-secret.json"
	// RegistryCertsDir holds one directory per registry, named after the
	// bundle's file with ".." turned into ":" (host..port is host:port),
	// with the bundle in ca.crt.
	RegistryCertsDir = "/etc/docker/certs.d"
	// UserCABundlePath is the cluster's user CA bundle, laid by a
	// MachineConfig; like the writer's bundles, a config that drops it
	// does not remove it.
	UserCABundlePath = "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt"
	// KubeletUnit is restarted by a re-bootstrap.
	KubeletUnit = "kubelet.service"
)

// How the MCO's update path treats the writer's files when a MachineConfig
// also lists them (release-4.21), so that the writer's content is never
// fought over:
//   - on-disk validation skips them (on_disk_validation.go
//     getFilesToIgnore);
//   - an update, unlike the first boot, does not write the kubelet CA
//     (update.go writeFiles with skipCertificateWrite, set by the daemon's
//     update path in daemon.go);
//   - a config that drops them does not remove them (update.go
//     deleteStaleData certsToSkip).

// ValidationSkips tells whether the on-disk validation of a config skips
// host path p.
func ValidationSkips(p string) bool {
	return p == KubeletCAPath || p == CloudCAPath || p == InternalRegistryPullSecretPath
}

// UpdateSkipsWrite tells whether an update leaves p as it is although
// the new config lists it.
func UpdateSkipsWrite(p string) bool { return p == KubeletCAPath }

// UpdateKeepsDropped tells whether an update leaves p in place although the
// new config no longer lists it.
func UpdateKeepsDropped(p string) bool {
	return p == UserCABundlePath || p == KubeletCAPath || p == CloudCAPath
}

// Annotations and the ConfigMap of the contract.
const (
	// LastSyncedAnnotation (node) is the ControllerConfig resourceVersion
	// the node's bundles were last written from
	// (constants.ControllerConfigResourceVersionKey).
	LastSyncedAnnotation = constants.Prefix + "lastSyncedControllerConfigResourceVersion"
	// LastObservedServerCAAnnotation (node) is the ControllerConfig's
	// ServiceCARotateAnnotation value the node last acted on
	// (constants.ControllerConfigSyncServerCA).
	LastObservedServerCAAnnotation = constants.Prefix + "lastObservedServerCAAnnotation"
	// ServiceCARotateAnnotation (ControllerConfig) is "true" while the
	// operator has copied a changed kube-apiserver serving CA into
	// ServerCAConfigMap, "false" otherwise (pkg/operator/sync.go).
	ServiceCARotateAnnotation = constants.Prefix + "service-ca-rotate"
	// ServiceCARotateTrue is the value that asks nodes to merge the CA.
	ServiceCARotateTrue = "true"
	// ControllerConfigName is the only ControllerConfig the writer reads.
	ControllerConfigName = "machine-config-controller"
	// ServerCANamespace/ServerCAConfigMap/ServerCAKey hold the rotated
	// kube-apiserver serving CA bundle.
	ServerCANamespace = "openshift-machine-config-operator"
	ServerCAConfigMap = "kubeconfig-data"
	ServerCAKey       = "ca-bundle.crt"
)

// Modes of the MCO's writeFileAtomicallyWithDefaults (update.go
// defaultFilePermissions, defaultDirectoryPermissions).
const (
	DefaultFileMode os.FileMode = 0o644
	DefaultDirMode  os.FileMode = 0o755
)

// State is what PlanSync reads besides the ControllerConfig: the node's
// annotations and the files on disk. Paths are host paths.
type State struct {
	NodeAnnotations map[string]string
	// Modes are the permission bits of the files that exist among the
	// ones the writer replaces whole (a rewrite keeps an existing mode).
	Modes map[string]os.FileMode
	// CertsDirExists tells whether RegistryCertsDir exists: the MCO writes
	// no registry bundle without it (the rendered configs create it,
	// templates/common/_base/files/etc-docker-certs.d.yaml).
	CertsDirExists bool
	// CertsDirs are the names of RegistryCertsDir's subdirectories.
	CertsDirs []string
	// ServerCA is ServerCAConfigMap's bundle, read only when NeedsServerCA;
	// nil: unavailable (the rotation is then not merged).
	ServerCA []byte
	// Kubeconfig and KubeletKubeconfig are the two kubeconfigs' contents
	// (nil: missing), read only when NeedsServerCA.
	Kubeconfig        []byte
	KubeletKubeconfig []byte
}

// Write replaces Path (a host path) with Data at Mode.
type Write struct {
	Path string
	Data []byte
	Mode os.FileMode
}

// KubeletRestart is the kubelet's re-bootstrap: stop it, write its
// kubeconfig with the rotated CA, daemon-reload, start it.
type KubeletRestart struct {
	Kubeconfig Write
}

// Plan is what one sync does, in order: Writes, then RemoveDirs (with
// everything in them), then RegistryWrites, then Restart, then
// Annotations.
type Plan struct {
	Writes         []Write
	RemoveDirs     []string
	RegistryWrites []Write
	Restart        *KubeletRestart
	// Annotations to set on the node; empty when it has them already.
	Annotations map[string]string
}

// Empty tells whether the plan does nothing.
func (p Plan) Empty() bool {
	return len(p.Writes) == 0 && len(p.RemoveDirs) == 0 && len(p.RegistryWrites) == 0 && p.Restart == nil && len(p.Annotations) == 0
}

// rotating tells whether the ControllerConfig asks for a server CA merge.
func rotating(cc *mcfgv1.ControllerConfig) bool {
	return cc.Annotations[ServiceCARotateAnnotation] == ServiceCARotateTrue
}

// needsSync is the MCO's test for rewriting the bundles: the node last
// synced another resourceVersion, or a rotation is on (then every event
// rewrites them).
func needsSync(cc *mcfgv1.ControllerConfig, ann map[string]string) bool {
	return ann[LastSyncedAnnotation] != cc.ResourceVersion || rotating(cc)
}

// NeedsServerCA tells whether the sync merges the rotated server CA: a
// rotation the node has not acted on yet. The caller then reads
// ServerCAConfigMap and the two kubeconfigs into State.
func NeedsServerCA(cc *mcfgv1.ControllerConfig, ann map[string]string) bool {
	if cc == nil || cc.Name != ControllerConfigName {
		return false
	}
	return needsSync(cc, ann) && rotating(cc) && ann[LastObservedServerCAAnnotation] != cc.Annotations[ServiceCARotateAnnotation]
}

// PlanSync decides one sync of ControllerConfig cc on a node in state st
// (the MCO's syncControllerConfigHandler). A ControllerConfig of another
// name, or none, does nothing. Bad input (a registry bundle name that is
// not one directory name, an unreadable kubeconfig during a rotation) is an
// error and nothing is written.
func PlanSync(cc *mcfgv1.ControllerConfig, st State) (Plan, error) {
	var p Plan
	if cc == nil || cc.Name != ControllerConfigName {
		return p, nil
	}
	ann := st.NodeAnnotations
	if needsSync(cc, ann) {
		p.Writes = []Write{
			st.keepingMode(InternalRegistryPullSecretPath, cc.Spec.InternalRegistryPullSecret),
			st.keepingMode(KubeletCAPath, cc.Spec.KubeAPIServerServingCAData),
			st.keepingMode(CloudCAPath, cc.Spec.CloudProviderCAData),
		}
		if NeedsServerCA(cc, ann) && st.ServerCA != nil {
			m, err := mergeServerCA(st.Kubeconfig, st.ServerCA)
			if err != nil {
				return Plan{}, fmt.Errorf("merging the rotated server CA into %s: %w", KubeconfigPath, err)
			}
			if m.kubeconfig != nil {
				p.Writes = append(p.Writes, st.keepingMode(KubeconfigPath, m.kubeconfig))
			}
			if m.restartKubelet {
				kc, err := withCA(st.KubeletKubeconfig, m.ca)
				if err != nil {
					return Plan{}, fmt.Errorf("re-bootstrapping the kubelet: %s: %w", KubeletKubeconfigPath, err)
				}
				p.Restart = &KubeletRestart{Kubeconfig: st.keepingMode(KubeletKubeconfigPath, kc)}
			}
		}
		if st.CertsDirExists {
			rm, ws, err := planRegistryCerts(cc, st.CertsDirs)
			if err != nil {
				return Plan{}, err
			}
			p.RemoveDirs, p.RegistryWrites = rm, ws
		}
	}
	p.Annotations = annotationsAfter(cc, ann)
	return p, nil
}

// keepingMode is the MCO's writeToDisk for one file: a newline is added
// when the data lacks one (an empty bundle becomes "\n"), and an existing
// file keeps its mode; a new one gets DefaultFileMode.
func (st State) keepingMode(p string, data []byte) Write {
	if !strings.HasSuffix(string(data), "\n") {
		data = append(append([]byte(nil), data...), '\n')
	}
	mode, ok := st.Modes[p]
	if !ok {
		mode = DefaultFileMode
	}
	return Write{Path: p, Data: data, Mode: mode}
}

// RegistryDirName is the certs.d directory of a registry bundle's file
// name: ".." stands for ":" (a port), which a ConfigMap key cannot hold.
func RegistryDirName(file string) string { return strings.ReplaceAll(file, "..", ":") }

// planRegistryCerts removes the certs.d directories no bundle names and
// writes each bundle's ca.crt verbatim at DefaultFileMode: the operator's
// bundles (spec.imageRegistryBundleData) first, then the user's
// (spec.imageRegistryBundleUserData), which win for the same registry.
//
// The MCO compares the directories with the bundles' file names before
// ".." is turned into ":", so a registry with a port has its directory
// removed and written again at every sync; tandem compares with the
// directory it writes, so a trusted registry never loses its CA for a
// moment. Only directories are removed; files (certs.d/.create) stay.
func planRegistryCerts(cc *mcfgv1.ControllerConfig, present []string) ([]string, []Write, error) {
	bundles := append(append([]mcfgv1.ImageRegistryBundle{}, cc.Spec.ImageRegistryBundleData...), cc.Spec.ImageRegistryBundleUserData...)
	keep := map[string]bool{}
	byPath := map[string]int{}
	var ws []Write
	for _, b := range bundles {
		dir := RegistryDirName(b.File)
		if dir == "" || dir == "." || strings.ContainsAny(dir, "/\x00") {
			return nil, nil, fmt.Errorf("image registry bundle %q: not a directory name under %s", b.File, RegistryCertsDir)
		}
		keep[dir] = true
		w := Write{Path: path.Join(RegistryCertsDir, dir, "ca.crt"), Data: b.Data, Mode: DefaultFileMode}
		if i, ok := byPath[w.Path]; ok {
			ws[i] = w
			continue
		}
		byPath[w.Path] = len(ws)
		ws = append(ws, w)
	}
	var rm []string
	for _, d := range present {
		if !keep[d] {
			rm = append(rm, path.Join(RegistryCertsDir, d))
		}
	}
	sort.Strings(rm)
	return rm, ws, nil
}

// annotationsAfter are the node annotations a sync leaves (the MCO sets
// them after every sync, written or not): the resourceVersion synced and
// the rotation value observed. Ones the node has already are left out.
func annotationsAfter(cc *mcfgv1.ControllerConfig, ann map[string]string) map[string]string {
	out := map[string]string{}
	if v, ok := ann[LastSyncedAnnotation]; !ok || v != cc.ResourceVersion {
		out[LastSyncedAnnotation] = cc.ResourceVersion
	}
	if rot := cc.Annotations[ServiceCARotateAnnotation]; ann[LastObservedServerCAAnnotation] != rot {
		out[LastObservedServerCAAnnotation] = rot
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
