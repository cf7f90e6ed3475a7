package dpu

import (
	"context"
	"fmt"

	configclientset "github.com/openshift/client-go/config/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// ReleaseReader reads the OpenShift release a cluster runs or upgrades to;
// "" when the cluster has none (not OpenShift).
type ReleaseReader func(ctx context.Context) (string, error)

// ClusterVersionRelease reads ClusterVersion "version"'s
// status.desired.version: the CVO sets it when an upgrade begins, before
// it applies the release's manifests (openshift/api config/v1
// types_cluster_version.go: "desired is the version that the cluster is
// reconciling towards"), so it names the release minutes before the MCO
// renders the pools' configs for it. A cluster without the ClusterVersion
// API or object gives "". The MCO's controller ClusterRole may read
// clusterversions (manifests/machineconfigcontroller/clusterrole.yaml,
// release-4.21); a Forbidden read also gives "", with no wait for a render.
func ClusterVersionRelease(cfg *rest.Config) (ReleaseReader, error) {
	cs, err := configclientset.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("config.openshift.io client: %w", err)
	}
	return func(ctx context.Context) (string, error) {
		cv, err := cs.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
			return "", nil
		case err != nil:
			return "", fmt.Errorf("reading ClusterVersion version: %w", err)
		}
		return cv.Status.Desired.Version, nil
	}, nil
}
