package mcoworld

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	configclientset "github.com/openshift/client-go/config/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2"
)

// Release is one OpenShift release as far as the MCO is concerned: its
// version and the pull specs `oc adm release new` puts in place of the
// MCO manifests' placeholders, by image-references tag
// (machine-config-operator, rhel-coreos, rhel-coreos-extensions,
// kube-rbac-proxy, pod, ...).
type Release struct {
	Version string
	Images  map[string]string
	// Image is the release image's own pull spec (ClusterVersion desired).
	Image string
}

// placeholder is how the MCO's install/ manifests name a release image
// (install/image-references at the pinned commit); `oc adm release new`
// replaces it, and "0.0.1-snapshot" by the release's version.
var placeholder = regexp.MustCompile(`placeholder\.url\.oc\.will\.replace\.this\.org/placeholdernamespace:([a-z0-9-]+)`)

const snapshotVersion = "0.0.1-snapshot"

// The CVO's manifest annotations (openshift/enhancements dev-guide
// cluster-version-operator/dev/operators.md and object-deletion.md): the
// cluster profile that includes a manifest, the feature sets it applies
// to, and the deletion of an object a release no longer has.
const (
	profileAnnotation    = "include.release.openshift.io/self-managed-high-availability"
	featureSetAnnotation = "release.openshift.io/feature-set"
	deleteAnnotation     = "release.openshift.io/delete"
)

// inDefaultFeatureSet tells whether a manifest applies to a cluster of the
// Default feature set (the annotation, when present, lists feature sets).
func inDefaultFeatureSet(o *unstructured.Unstructured) bool {
	sets, ok := o.GetAnnotations()[featureSetAnnotation]
	if !ok {
		return true
	}
	return slices.Contains(strings.Split(sets, ","), "Default")
}

// CVO stands in for the cluster-version operator: what it does with the
// MCO image's /manifests when a release is installed or upgraded to.
type CVO struct {
	Dynamic dynamic.Interface
	Mapper  meta.RESTMapper
	Config  configclientset.Interface
	// Manifests is the directory of the image's /manifests.
	Manifests string
}

// Apply applies release r: the FeatureGate status gets r's version (the
// cluster-config-operator's part of an upgrade), ClusterVersion's desired
// release becomes r, and each manifest of the self-managed HA profile is
// applied in the CVO's order (by file name), with r's images and version
// in place of the placeholders. ClusterOperator manifests are not applied:
// the CVO pre-creates the ClusterOperator with an empty status and waits
// for the versions the manifest names (see WaitClusterOperator). Kinds
// this cluster does not serve (monitoring's, the storage migrator's) are
// skipped and returned.
func (c CVO) Apply(ctx context.Context, r Release) (skipped []string, err error) {
	if err := c.addFeatureGates(ctx, r.Version); err != nil {
		return nil, err
	}
	if err := c.setDesired(ctx, r); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(c.Manifests, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		objs, err := c.render(f, r)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			ok, err := c.applyOne(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %s %s: %w", filepath.Base(f), o.GetKind(), o.GetName(), err)
			}
			if !ok {
				skipped = append(skipped, o.GetKind()+"/"+o.GetName())
			}
		}
	}
	return skipped, nil
}

// render reads one manifest file with r's substitutions, keeping the
// objects of the self-managed HA profile.
func (c CVO) render(path string, r Release) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var missing []string
	text := placeholder.ReplaceAllStringFunc(string(raw), func(m string) string {
		tag := placeholder.FindStringSubmatch(m)[1]
		img, ok := r.Images[tag]
		if !ok {
			missing = append(missing, tag)
		}
		return img
	})
	text = strings.ReplaceAll(text, snapshotVersion, r.Version)
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(text)), 4096)
	var out []*unstructured.Unstructured
	for {
		var o unstructured.Unstructured
		if err := dec.Decode(&o.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		if len(o.Object) == 0 || o.GetAnnotations()[profileAnnotation] != "true" || !inDefaultFeatureSet(&o) {
			continue
		}
		out = append(out, &o)
	}
	if len(out) > 0 && len(missing) > 0 {
		return nil, fmt.Errorf("%s: release %s has no image for %v", filepath.Base(path), r.Version, missing)
	}
	return out, nil
}

// applyOne creates or updates o; false when the cluster does not serve its kind.
func (c CVO) applyOne(ctx context.Context, o *unstructured.Unstructured) (bool, error) {
	gvk := o.GroupVersionKind()
	m, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		klog.InfoS("CVO stand-in: kind not served, skipped", "kind", gvk.String(), "name", o.GetName())
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var ri dynamic.ResourceInterface = c.Dynamic.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = c.Dynamic.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	if o.GetAnnotations()[deleteAnnotation] == "true" {
		err := ri.Delete(ctx, o.GetName(), metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			err = nil
		}
		return true, err
	}
	if gvk.Kind == "ClusterOperator" {
		// Pre-created with an empty status, as the CVO does, so that only
		// the operator reports versions.
		co := &unstructured.Unstructured{}
		co.SetGroupVersionKind(gvk)
		co.SetName(o.GetName())
		co.SetAnnotations(o.GetAnnotations())
		co.Object["spec"] = map[string]any{}
		_, err := ri.Create(ctx, co, metav1.CreateOptions{})
		return true, ensureErr(err)
	}
	cur, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = ri.Create(ctx, o, metav1.CreateOptions{})
		return true, err
	}
	if err != nil {
		return false, err
	}
	o.SetResourceVersion(cur.GetResourceVersion())
	_, err = ri.Update(ctx, o, metav1.UpdateOptions{})
	return true, err
}

// addFeatureGates adds version's entry to the FeatureGate's status (the
// Default set), keeping those of earlier versions, as the
// cluster-config-operator does before the CVO rolls the new release out.
func (c CVO) addFeatureGates(ctx context.Context, version string) error {
	enabled, disabled, err := DefaultFeatureGates()
	if err != nil {
		return err
	}
	fg, err := c.Config.ConfigV1().FeatureGates().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("featuregate: %w", err)
	}
	for _, d := range fg.Status.FeatureGates {
		if d.Version == version {
			return nil
		}
	}
	fg.Status.FeatureGates = append(fg.Status.FeatureGates, configv1.FeatureGateDetails{Version: version, Enabled: enabled, Disabled: disabled})
	if _, err := c.Config.ConfigV1().FeatureGates().UpdateStatus(ctx, fg, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("featuregate status: %w", err)
	}
	return nil
}

// setDesired makes r the ClusterVersion's desired release, with a partial
// history entry for it.
func (c CVO) setDesired(ctx context.Context, r Release) error {
	cv, err := c.Config.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("clusterversion: %w", err)
	}
	cv.Status.Desired = configv1.Release{Version: r.Version, Image: r.Image}
	now := metav1.Now()
	cv.Status.History = append([]configv1.UpdateHistory{{State: configv1.PartialUpdate, StartedTime: now, Version: r.Version, Image: r.Image}}, cv.Status.History...)
	cv.Status.ObservedGeneration = cv.Generation
	cv.Status.VersionHash = "tandem-" + r.Version
	if _, err := c.Config.ConfigV1().ClusterVersions().UpdateStatus(ctx, cv, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("clusterversion status: %w", err)
	}
	return nil
}
