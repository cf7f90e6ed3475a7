package v1alpha1

import (
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-mco/tandem/manifests"
)

// TestGeneratedCRD checks the controller-gen output the test control planes
// and clusters install: it decodes strictly and carries the validation the
// API promises.
func TestGeneratedCRD(t *testing.T) {
	data, err := manifests.CRDs.ReadFile("crds/tandem/" + GroupName + "_" + HostMaintenanceResource + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	if crd.Spec.Group != GroupName || crd.Spec.Names.Kind != HostMaintenanceKind || crd.Spec.Scope != apiextensionsv1.ClusterScoped {
		t.Fatalf("CRD %s: group %s kind %s scope %s", crd.Name, crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Scope)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != Version || crd.Spec.Versions[0].Subresources.Status == nil {
		t.Fatalf("versions %+v", crd.Spec.Versions)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if !slices.Contains(spec.Required, "nodeName") || !slices.Contains(spec.Required, "action") {
		t.Errorf("spec.required = %v", spec.Required)
	}
	var actions []string
	for _, e := range spec.Properties["action"].Enum {
		actions = append(actions, string(e.Raw))
	}
	if !slices.Equal(actions, []string{`"Drain"`, `"Reboot"`, `"Pair"`, `"Taint"`}) {
		t.Errorf("action enum %v", actions)
	}
	if len(spec.XValidations) != 1 || spec.XValidations[0].Rule != "self == oldSelf" {
		t.Errorf("spec immutability rule %+v", spec.XValidations)
	}
	var cols []string
	for _, c := range crd.Spec.Versions[0].AdditionalPrinterColumns {
		cols = append(cols, c.Name)
	}
	if !slices.Equal(cols, []string{"Node", "Action", "Phase", "Requester", "Message", "Age"}) {
		t.Errorf("printer columns %v", cols)
	}
}
