//go:build integration

package framework

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestApiserverSurvivesMasterReboot backs one kube-apiserver with a real
// 3-member etcd cluster and reboots each member in turn: the apiserver keeps
// serving writes throughout, because a quorum stays up.
func TestApiserverSurvivesMasterReboot(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	etcd := NewEtcdCluster(t, 3)
	cp := NewControlPlane(t, ControlPlaneOptions{Name: "ha", EtcdCluster: etcd})

	for i := range etcd.Size() {
		if err := etcd.StopMember(i); err != nil {
			t.Fatalf("stopping %s: %v", etcd.MemberName(i), err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "while-" + etcd.MemberName(i), Namespace: "default"}}
		if err := poll(ctx, 200*time.Millisecond, func() (bool, error) {
			_, err := cp.Kube.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
			return err == nil, nil
		}); err != nil {
			t.Fatalf("apiserver did not accept a write with %s down: %v", etcd.MemberName(i), err)
		}
		if err := etcd.StartMember(ctx, i); err != nil {
			t.Fatalf("restarting %s: %v", etcd.MemberName(i), err)
		}
	}
	cms, err := cp.Kube.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, cm := range cms.Items {
		if len(cm.Name) > 6 && cm.Name[:6] == "while-" {
			written++
		}
	}
	if written != etcd.Size() {
		t.Errorf("found %d of %d writes made during member reboots", written, etcd.Size())
	}
}

// TestTwoIndependentControlPlanes starts a tenant and an infra control plane
// and checks that an object in one is absent from the other.
func TestTwoIndependentControlPlanes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tenant := NewControlPlane(t, ControlPlaneOptions{Name: "tenant"})
	infra := NewControlPlane(t, ControlPlaneOptions{Name: "infra"})
	if tenant.RESTConfig.Host == infra.RESTConfig.Host {
		t.Fatalf("both control planes serve on %s", tenant.RESTConfig.Host)
	}
	node := KwokNode("dpu-0", nil)
	if _, err := infra.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tenant.Kube.CoreV1().Nodes().Get(ctx, "dpu-0", metav1.GetOptions{}); err == nil {
		t.Fatal("infra node visible in the tenant cluster")
	}
	for _, cp := range []*ControlPlane{tenant, infra} {
		if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("%s: MachineConfigPool CRD not served: %v", cp.Name, err)
		}
		if _, err := cp.MCO.MachineconfigurationV1().MachineConfigNodes().List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("%s: MachineConfigNode CRD not served: %v", cp.Name, err)
		}
	}
}
