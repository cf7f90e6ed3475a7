package framework

import (
	"fmt"
	"io/fs"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-mco/tandem/manifests"
)

// loadEmbeddedCRDs decodes every CRD under manifests/crds.
func loadEmbeddedCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	err := fs.WalkDir(manifests.CRDs, "crds", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := manifests.CRDs.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return fmt.Errorf("decoding CRD %s: %w", path, err)
		}
		if crd.Kind != "CustomResourceDefinition" {
			return fmt.Errorf("%s: kind %q, want CustomResourceDefinition", path, crd.Kind)
		}
		crds = append(crds, crd)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("loading embedded CRDs: %w", err)
	}
	return crds, nil
}
