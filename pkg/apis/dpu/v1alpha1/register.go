package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of tandem's DPU types.
const GroupName = "dpu.machineconfiguration.openshift.io"

// Version is this package's API version.
const Version = "v1alpha1"

var (
	// GroupVersion is group version used to register these objects.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: Version}
	// SchemeBuilder adds this package's types to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this package's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource names.
const (
	// HostMaintenanceKind is the kind of HostMaintenance objects.
	HostMaintenanceKind = "HostMaintenance"
	// HostMaintenanceResource is the plural resource name.
	HostMaintenanceResource = "hostmaintenances"
)

// HostMaintenanceGVR is the resource of HostMaintenance objects.
var HostMaintenanceGVR = GroupVersion.WithResource(HostMaintenanceResource)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &HostMaintenance{}, &HostMaintenanceList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
