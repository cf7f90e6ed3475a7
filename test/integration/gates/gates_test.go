//go:build integration

// Package gates runs the node controller, wired as
// cmd/machine-config-controller wires it, against a real kube-apiserver,
// and checks each disruption gate end to end: the grant waits, staging does
// not, and the pool's DisruptionHeld condition names the hold.
package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/framework"
)

const cfgA, cfgB = "rendered-worker-a", "rendered-worker-b"

// prometheus answers instant queries of ALERTS like the Prometheus HTTP API.
type prometheus struct {
	mu     sync.Mutex
	firing []string
}

func (p *prometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = r.ParseForm()
	result := []map[string]any{}
	if r.URL.Path == "/api/v1/query" && r.Form.Get("query") == "ALERTS" {
		for _, a := range p.firing {
			result = append(result, map[string]any{"metric": map[string]string{"__name__": "ALERTS", "alertname": a, "alertstate": "firing"},
				"value": []any{float64(time.Now().Unix()), "1"}})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": result}})
}

func (p *prometheus) set(alerts ...string) { p.mu.Lock(); p.firing = alerts; p.mu.Unlock() }

func TestGatesHoldGrantsNotStages(t *testing.T) {
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "gates"})
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	t.Cleanup(func() { cancel(); running.Wait() })

	for _, n := range []string{"w1", "w2"} {
		nd := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""},
			Annotations: map[string]string{constants.CurrentConfigAnnotation: cfgA, constants.DesiredConfigAnnotation: cfgA,
				constants.StateAnnotation: constants.MachineConfigDaemonStateDone}}}
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, nd, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	two := intstr.FromInt(2)
	pool := &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: constants.WorkerPool, Annotations: map[string]string{
			constants.DisruptionHoldAnnotation: "change freeze until Monday"}},
		Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector:   &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + constants.WorkerPool: ""}},
			Configuration:  mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: cfgB}},
			MaxUnavailable: &two,
		},
	}
	if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Create(ctx, pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The namespace of a pod the blocking-pod selector will match.
	if _, err := cp.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "db"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	prom := &prometheus{}
	prom.set("KubeNodeNotReady")
	srv := httptest.NewServer(prom)
	t.Cleanup(srv.Close)

	kubeInf := informers.NewSharedInformerFactory(cp.Kube, 0)
	mcoInf := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
	blocking, err := node.NewBlockingPodGate([]string{"app=db"}, kubeInf.Core().V1().Pods())
	if err != nil {
		t.Fatal(err)
	}
	alerts := &node.AlertGate{URL: srv.URL, Interval: 200 * time.Millisecond}
	ctrl := node.NewController(cp.Kube, cp.MCO, kubeInf.Core().V1().Nodes(), mcoInf.Machineconfiguration().V1().MachineConfigPools(),
		node.Options{Gates: []node.DisruptionGate{blocking, alerts}, Resync: 300 * time.Millisecond})
	kubeInf.Start(ctx.Done())
	mcoInf.Start(ctx.Done())
	running.Add(2)
	go func() { defer running.Done(); _ = alerts.Run(ctx) }()
	go func() { defer running.Done(); _ = ctrl.Run(ctx, 1) }()

	// state waits (bounded) until the pool's DisruptionHeld shows reason and
	// the nodes' annotations are as wanted.
	state := func(step, reason, msg string, want map[string][2]string) {
		t.Helper()
		var last string
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			p, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, constants.WorkerPool, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			var held mcfgv1.MachineConfigPoolCondition
			for _, c := range p.Status.Conditions {
				if c.Type == constants.PoolDisruptionHeldCondition {
					held = c
				}
			}
			last = fmt.Sprintf("DisruptionHeld=%s/%s %q", held.Status, held.Reason, held.Message)
			ok := held.Reason == reason && strings.Contains(held.Message, msg)
			if reason == "" {
				ok = held.Status == corev1.ConditionFalse
			}
			for name, w := range want {
				n, err := cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, nil
				}
				stage, desired := n.Annotations[constants.StageConfigAnnotation], n.Annotations[constants.DesiredConfigAnnotation]
				last += fmt.Sprintf(" %s(stage=%s desired=%s)", name, stage, desired)
				ok = ok && stage == w[0] && desired == w[1]
			}
			return ok, nil
		})
		if err != nil {
			t.Fatalf("%s: last seen %s", step, last)
		}
		t.Logf("%s: %s", step, last)
	}
	patchPool := func(annotations map[string]any) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
		if _, err := cp.MCO.MachineconfigurationV1().MachineConfigPools().Patch(ctx, constants.WorkerPool, types.MergePatchType, b, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// Staging goes ahead under every hold; only desiredConfig waits.
	state("manual hold", string(node.HoldManual), "change freeze until Monday",
		map[string][2]string{"w1": {cfgB, cfgA}, "w2": {cfgB, cfgA}})
	// A window that opens once a year, an hour from now at the earliest.
	closed := time.Now().UTC().Add(-2 * time.Hour)
	patchPool(map[string]any{constants.DisruptionHoldAnnotation: nil,
		constants.MaintenanceWindowsAnnotation: fmt.Sprintf("%d %d %d %d * 30m", closed.Minute(), closed.Hour(), closed.Day(), int(closed.Month()))})
	state("maintenance window", string(node.HoldMaintenanceWindow), "outside the maintenance windows",
		map[string][2]string{"w1": {cfgB, cfgA}, "w2": {cfgB, cfgA}})
	patchPool(map[string]any{constants.MaintenanceWindowsAnnotation: nil})
	state("firing alert", string(node.HoldFiringAlerts), "KubeNodeNotReady",
		map[string][2]string{"w1": {cfgB, cfgA}, "w2": {cfgB, cfgA}})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "db-0", Labels: map[string]string{"app": "db"}},
		Spec: corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "db", Image: "db"}}}}
	if _, err := cp.Kube.CoreV1().Pods("db").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	prom.set()
	state("blocking pod", string(node.HoldBlockingPods), "db/db-0",
		map[string][2]string{"w1": {cfgB, cfgA}, "w2": {cfgB, cfgB}})
	// kured's rule: a finished pod does not block.
	pod, err = cp.Kube.CoreV1().Pods("db").Get(ctx, "db-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodSucceeded
	if _, err := cp.Kube.CoreV1().Pods("db").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	state("no hold", "", "", map[string][2]string{"w1": {cfgB, cfgB}, "w2": {cfgB, cfgB}})
}
