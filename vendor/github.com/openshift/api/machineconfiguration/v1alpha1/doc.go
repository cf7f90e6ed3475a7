// +k8s:deepcopy-gen=package,register
// +groupName=machineconfiguration.openshift.io
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true

// Package v1alpha1 is the v1alpha1 version of the API.
package v1alpha1
