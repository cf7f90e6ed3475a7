package render

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/mcfg"
)

// ControllerConfigName is the one ControllerConfig the MCO's operator writes
// and its render controller reads (ctrlcommon.ControllerConfigName).
const ControllerConfigName = "machine-config-controller"

// Annotations the MCO puts on rendered configs besides the controller
// version (pkg/controller/common/constants.go, release-4.20). They are not
// part of the hashed spec.
const (
	ReleaseImageVersionAnnotation  = constants.Prefix + "release-image-version"
	OSImageURLOverriddenAnnotation = constants.Prefix + "os-image-url-overridden"
)

// Reasons of the ControllerConfig pool condition.
const (
	ReasonControllerConfigFound    = "ControllerConfigFound"
	ReasonControllerConfigNotFound = "NoControllerConfig"
)

// kubeAPIServerServingCA is the only bundle whose certificates the MCO
// reports in a pool's status.certExpirys (pkg/controller/node/status.go
// calculateStatus, release-4.20).
const kubeAPIServerServingCA = "KubeAPIServerServingCAData"

// DefaultsFromControllerConfig returns the render defaults the MCO takes from
// the ControllerConfig: the OS image is spec.baseOSContainerImage
// (GetDefaultBaseImageContainer; spec.osImageURL has not been used for it
// since 4.16) and the extensions image spec.baseOSExtensionsContainerImage.
func DefaultsFromControllerConfig(cc *mcfgv1.ControllerConfig) mcfg.Defaults {
	return mcfg.Defaults{
		OSImageURL:                     cc.Spec.BaseOSContainerImage,
		BaseOSExtensionsContainerImage: cc.Spec.BaseOSExtensionsContainerImage,
	}
}

// CertExpirys returns the pool's status.certExpirys from the ControllerConfig's
// certificates, as the MCO's node controller does: the kube-apiserver
// serving CA bundle's certificates, never nil.
func CertExpirys(cc *mcfgv1.ControllerConfig) []mcfgv1.CertExpiry {
	out := []mcfgv1.CertExpiry{}
	if cc == nil {
		return out
	}
	for _, c := range cc.Status.ControllerCertificates {
		if c.BundleFile == kubeAPIServerServingCA {
			out = append(out, mcfgv1.CertExpiry{Bundle: c.BundleFile, Subject: c.Subject, Expiry: c.NotAfter})
		}
	}
	return out
}

// controllerConfigCondition says in the pool's status which render inputs
// came from a ControllerConfig, so an admin sees at a glance whether tandem
// renders the MCO's way (same names) or standalone.
func controllerConfigCondition(cc *mcfgv1.ControllerConfig) mcfgv1.MachineConfigPoolCondition {
	c := mcfgv1.MachineConfigPoolCondition{Type: constants.PoolControllerConfigCondition}
	if cc == nil {
		c.Status = corev1.ConditionFalse
		c.Reason = ReasonControllerConfigNotFound
		c.Message = fmt.Sprintf("No ControllerConfig %s: rendering standalone, without the release's OS image, "+
			"extensions image and certificates (rendered names match the MCO's only when no ControllerConfig is expected)", ControllerConfigName)
		return c
	}
	c.Status = corev1.ConditionTrue
	c.Reason = ReasonControllerConfigFound
	c.Message = fmt.Sprintf("Rendering with ControllerConfig %s: OS image %s, extensions image %s",
		ControllerConfigName, orUnset(cc.Spec.BaseOSContainerImage), orUnset(cc.Spec.BaseOSExtensionsContainerImage))
	return c
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}
