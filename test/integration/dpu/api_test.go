//go:build integration

package dpu_test

import (
	"encoding/json"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/test/framework"
)

const mcoNS = "openshift-machine-config-operator"

// TestHostMaintenanceAPIAndRBAC checks the CRD's validation on a real
// apiserver, and the manifests/rbac roles: the infra identity manages
// hostmaintenances and nothing else; the daemon and the controller get
// what their code calls.
func TestHostMaintenanceAPIAndRBAC(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "tenant"})
	ensureNamespace(t, cp.Kube, mcoNS)
	ensureNamespace(t, cp.Kube, "openshift-dpu-network-operator")
	for _, f := range []string{"tenant-dpu-infra-identity.yaml", "machine-config-daemon.yaml",
		"machine-config-controller.yaml", "machine-config-controller-dpu-pairing.yaml"} {
		applyManifest(t, cp.Kube, "manifests/rbac/"+f)
	}
	t.Run("validation", func(t *testing.T) { apiValidation(t, cp) })
	t.Run("infra identity", func(t *testing.T) { infraIdentity(t, cp) })
	t.Run("daemon and controller roles", func(t *testing.T) { componentRoles(t, cp) })
}

func apiValidation(t *testing.T, cp *framework.ControlPlane) {
	ctx := t.Context()
	hm := hmClient(t, cp.RESTConfig)
	bad := []struct {
		name string
		spec dpuv1.HostMaintenanceSpec
		want string
	}{
		{"no-node", dpuv1.HostMaintenanceSpec{Action: dpuv1.ActionDrain}, "spec.nodeName"},
		{"bad-action", dpuv1.HostMaintenanceSpec{NodeName: "w0", Action: "Reinstall"}, "spec.action"},
		{"no-action", dpuv1.HostMaintenanceSpec{NodeName: "w0"}, "spec.action"},
	}
	for _, b := range bad {
		_, err := hm.Create(ctx, &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: b.name}, Spec: b.spec})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: got %v, want an Invalid error about %s", b.name, err, b.want)
		}
	}
	ok, err := hm.Create(ctx, &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: "ok"},
		Spec: dpuv1.HostMaintenanceSpec{NodeName: "w0", Action: dpuv1.ActionReboot, Reason: "test", Requester: "me"}})
	if err != nil {
		t.Fatal(err)
	}
	// The spec is immutable.
	_, err = dynamic.NewForConfigOrDie(cp.RESTConfig).Resource(dpuv1.HostMaintenanceGVR).Patch(ctx, ok.Name,
		types.MergePatchType, []byte(`{"spec":{"nodeName":"w1"}}`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "immutable") {
		t.Errorf("changing spec.nodeName: got %v, want Invalid: immutable", err)
	}
	// The status is a subresource with its own validation.
	ok.Status.Phase = "Exploded"
	if _, err := hm.UpdateStatus(ctx, ok); !apierrors.IsInvalid(err) {
		t.Errorf("bad phase: got %v, want Invalid", err)
	}
	ok.Status.Phase = dpuv1.PhasePending
	if _, err := hm.UpdateStatus(ctx, ok); err != nil {
		t.Errorf("status update: %v", err)
	}
	// Printer columns, as kubectl shows them.
	raw, err := cp.Kube.CoreV1().RESTClient().Get().AbsPath("/apis", dpuv1.GroupName, dpuv1.Version, dpuv1.HostMaintenanceResource).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	table := &metav1.Table{}
	if err := json.Unmarshal(raw, table); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	if got := strings.Join(cols, ","); !strings.Contains(got, "Node,Action,Phase") {
		t.Errorf("printer columns %s", got)
	}
}

func impersonate(t *testing.T, cp *framework.ControlPlane, user string, groups ...string) *rest.Config {
	cfg := rest.CopyConfig(cp.RESTConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
	return cfg
}

func infraIdentity(t *testing.T, cp *framework.ControlPlane) {
	ctx := t.Context()
	cfg := impersonate(t, cp, "system:serviceaccount:"+mcoNS+":tandem-dpu-infra",
		"system:serviceaccounts", "system:serviceaccounts:"+mcoNS)
	hm := hmClient(t, cfg)
	kube := kubernetes.NewForConfigOrDie(cfg)

	// Allowed: create, get, list, watch, delete.
	created, err := hm.Create(ctx, &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: "by-infra"},
		Spec: dpuv1.HostMaintenanceSpec{NodeName: "w0", Action: dpuv1.ActionDrain, Requester: "infra"}})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := hm.Get(ctx, created.Name); err != nil {
		t.Errorf("get: %v", err)
	}
	if _, err := hm.List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list: %v", err)
	}
	w, err := hm.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Errorf("watch: %v", err)
	} else {
		w.Stop()
	}

	// Denied: writing status or changing requests, and everything else.
	created.Status.Phase = dpuv1.PhaseDrained
	denied := map[string]error{}
	_, denied["update hostmaintenances/status"] = hm.UpdateStatus(ctx, created)
	_, denied["patch hostmaintenances"] = dynamic.NewForConfigOrDie(cfg).Resource(dpuv1.HostMaintenanceGVR).Patch(ctx,
		created.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
	_, denied["list nodes"] = kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	_, denied["get node"] = kube.CoreV1().Nodes().Get(ctx, "w0", metav1.GetOptions{})
	_, denied["patch node"] = kube.CoreV1().Nodes().Patch(ctx, "w0", types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{})
	_, denied["list pods"] = kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	_, denied["list secrets"] = kube.CoreV1().Secrets(mcoNS).List(ctx, metav1.ListOptions{})
	_, denied["get secret"] = kube.CoreV1().Secrets("kube-system").Get(ctx, "any", metav1.GetOptions{})
	denied["create eviction"] = kube.PolicyV1().Evictions(workloadNS).Evict(ctx, &policyv1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: "some-pod", Namespace: workloadNS}})
	for what, err := range denied {
		if !apierrors.IsForbidden(err) {
			t.Errorf("%s as the infra identity: got %v, want Forbidden", what, err)
		}
	}
	if err := hm.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete: %v", err)
	}
}

// componentRoles asks the apiserver (SubjectAccessReview) whether the
// daemon's and the controller's service accounts may make the calls their
// code makes, and not more than that where it matters.
func componentRoles(t *testing.T, cp *framework.ControlPlane) {
	ctx := t.Context()
	type check struct {
		group, resource, sub, verb, ns string
		want                           bool
	}
	sa := func(name string) string { return "system:serviceaccount:" + mcoNS + ":" + name }
	cases := map[string][]check{
		sa("tandem-dpu-infra"): {
			{"dpu.machineconfiguration.openshift.io", "hostmaintenances", "", "create", "", true},
			{"dpu.machineconfiguration.openshift.io", "hostmaintenances", "", "patch", "", false},
			{"", "nodes", "", "patch", "", false},
			{"nodemaintenance.medik8s.io", "nodemaintenances", "", "create", "", false},
		},
		sa("machine-config-daemon"): {
			{"", "nodes", "", "patch", "", true},
			{"", "nodes", "", "watch", "", true},
			{"machineconfiguration.openshift.io", "machineconfigs", "", "get", "", true},
			{"machineconfiguration.openshift.io", "machineconfignodes", "status", "update", "", true},
			{"machineconfiguration.openshift.io", "machineconfignodes", "", "create", "", true},
			{"", "pods", "eviction", "create", "x", false},
			{"", "secrets", "", "get", "x", false},
			{"machineconfiguration.openshift.io", "machineconfigs", "", "create", "", false},
		},
		sa("machine-config-controller"): {
			{"", "nodes", "", "patch", "", true},
			{"", "pods", "", "list", "", true},
			{"", "pods", "eviction", "create", "x", true},
			{"apps", "daemonsets", "", "get", "x", true},
			{"machineconfiguration.openshift.io", "machineconfigpools", "status", "update", "", true},
			{"machineconfiguration.openshift.io", "machineconfigs", "", "create", "", true},
			{"dpu.machineconfiguration.openshift.io", "hostmaintenances", "", "watch", "", true},
			{"dpu.machineconfiguration.openshift.io", "hostmaintenances", "status", "update", "", true},
			{"nodemaintenance.medik8s.io", "nodemaintenances", "", "watch", "", true},
			{"nodemaintenance.medik8s.io", "nodemaintenances", "status", "update", "", true},
			{"nodemaintenance.medik8s.io", "nodemaintenances", "", "delete", "", false},
			{"coordination.k8s.io", "leases", "", "update", mcoNS, true},
			{"", "configmaps", "", "watch", "openshift-dpu-network-operator", true},
			{"coordination.k8s.io", "leases", "", "update", "kube-system", false},
			{"", "secrets", "", "get", "x", false},
		},
	}
	for user, checks := range cases {
		for _, c := range checks {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User:   user,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + mcoNS, "system:authenticated"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{Group: c.group, Resource: c.resource,
					Subresource: c.sub, Verb: c.verb, Namespace: c.ns},
			}}
			got, err := cp.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Status.Allowed != c.want {
				t.Errorf("%s %+v: allowed=%v, want %v", user, c, got.Status.Allowed, c.want)
			}
		}
	}
}
