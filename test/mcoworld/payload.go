package mcoworld

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-mco/tandem/test/framework"
)

// PayloadCRDs are the CRDs a self-managed, Default-feature-set cluster
// runs with (openshift/api payload-manifests/crds, without the
// TechPreview, DevPreview, CustomNoUpgrade and HyperShift variants) and the
// CVO's own ClusterVersion and ClusterOperator, but those named in skip.
func PayloadCRDs(skip map[string]bool) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	dir, err := framework.OpenshiftAPIDir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "payload-manifests", "crds", "*.crd.yaml"))
	if err != nil {
		return nil, err
	}
	cvo, err := filepath.Glob(filepath.Join(dir, "config", "v1", "zz_generated.crd-manifests", "0000_00_cluster-version-operator_01_*.crd.yaml"))
	if err != nil {
		return nil, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	seen := map[string]bool{}
	for _, f := range append(files, cvo...) {
		base := filepath.Base(f)
		if strings.Contains(base, "NoUpgrade") || strings.Contains(base, "Hypershift") {
			continue
		}
		if strings.Contains(base, "clusterversions") && !strings.Contains(base, "-Default") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", base, err)
		}
		if skip[crd.Name] || seen[crd.Name] {
			continue
		}
		seen[crd.Name] = true
		crds = append(crds, &crd)
	}
	sort.Slice(crds, func(i, j int) bool { return crds[i].Name < crds[j].Name })
	return crds, nil
}

// DefaultFeatureGates is the Default feature set's gate list of a
// self-managed cluster (payload-manifests/featuregates), as the
// cluster-config-operator writes it into the FeatureGate's status for
// each release version.
func DefaultFeatureGates() (enabled, disabled []configv1.FeatureGateAttributes, err error) {
	dir, err := framework.OpenshiftAPIDir()
	if err != nil {
		return nil, nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "payload-manifests", "featuregates", "featureGate-SelfManagedHA-Default.yaml"))
	if err != nil {
		return nil, nil, err
	}
	var fg configv1.FeatureGate
	if err := yaml.Unmarshal(raw, &fg); err != nil {
		return nil, nil, fmt.Errorf("featureGate-SelfManagedHA-Default.yaml: %w", err)
	}
	if len(fg.Status.FeatureGates) != 1 {
		return nil, nil, fmt.Errorf("featureGate-SelfManagedHA-Default.yaml: %d versions, want 1", len(fg.Status.FeatureGates))
	}
	return fg.Status.FeatureGates[0].Enabled, fg.Status.FeatureGates[0].Disabled, nil
}
