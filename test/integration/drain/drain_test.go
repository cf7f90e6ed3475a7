//go:build integration

// Package drain_test runs the drain controller against a real
// kube-apiserver with kube-controller-manager (PodDisruptionBudget status,
// Deployments, DaemonSets), kube-scheduler and kwok kubelets, so evictions
// are real and a PodDisruptionBudget really holds a drain back.
package drain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/utils/ptr"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/drain"
	"github.com/tandem-mco/tandem/test/framework"
)

const (
	ns     = "workload"
	config = "rendered-worker-0123456789abcdef0123456789abcdef"
)

type world struct {
	t       *testing.T
	cp      *framework.ControlPlane
	metrics *drain.Metrics
}

func TestDrain(t *testing.T) {
	ctx := t.Context()
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "drain", KubeControllers: true})
	framework.NewKwok(t, cp)
	metrics, err := drain.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	w := world{t: t, cp: cp, metrics: metrics}

	factory := informers.NewSharedInformerFactory(cp.Kube, 0)
	ctrl, err := drain.NewController(cp.Kube, factory.Core().V1().Nodes(), drain.Options{
		// Short attempts and retries so a PDB-blocked drain shows failed
		// attempts quickly; the logic is the same as with the MCO's values.
		AttemptTimeout: 8 * time.Second,
		Retry:          drain.RetryPolicy{Delay: time.Second, SlowAfter: time.Hour, SlowDelay: time.Second, Timeout: 2 * time.Hour},
		Metrics:        metrics,
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	t.Cleanup(func() { stop(); <-done })
	factory.Start(runCtx.Done())
	go func() { done <- ctrl.Run(runCtx, 2) }()

	if _, err := cp.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A DaemonSet everywhere: its pods must survive every drain.
	if _, err := cp.Kube.AppsV1().DaemonSets(ns).Create(ctx, daemonSet("agent"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	t.Run("PDB holds the drain until it allows the eviction", w.pdbHoldsDrain)
	t.Run("uncordon keeps a cordon a person made before", w.adminCordonKept)
}

func (w world) pdbHoldsDrain(t *testing.T) {
	ctx := t.Context()
	kube := w.cp.Kube
	w.addNode(ctx, "node-a")
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, deployment("app", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app"}},
		},
	}
	if _, err := kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(ctx, "2 app pods and the agent running on node-a, PDB allowing 1 disruption", func() (bool, string) {
		app, agent := w.runningPods(ctx, "node-a")
		p, err := kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return app == 2 && agent == 1 && p.Status.CurrentHealthy == 2 && p.Status.DisruptionsAllowed == 1,
			fmt.Sprintf("app=%d agent=%d pdb healthy=%d allowed=%d", app, agent, p.Status.CurrentHealthy, p.Status.DisruptionsAllowed)
	})

	req := constants.DrainRequest(config)
	w.annotate(ctx, "node-a", map[string]*string{constants.DesiredDrainAnnotation: &req})

	// One pod may go; the second is held by the PDB: its replacement has
	// nowhere to run, so attempts fail and are retried.
	w.waitFor(ctx, "a drain attempt refused by the PDB", func() (bool, string) {
		f := testutil.ToFloat64(w.metrics.AttemptFailures.WithLabelValues("node-a"))
		return f >= 1, fmt.Sprintf("failed attempts=%v", f)
	})
	n := w.node(ctx, "node-a")
	app, agent := w.runningPods(ctx, "node-a")
	if got := n.Annotations[constants.LastAppliedDrainAnnotation]; got == req {
		t.Fatalf("drain acknowledged while the PDB forbids evicting the last app pod")
	}
	if !n.Spec.Unschedulable || n.Annotations[constants.CordonedByAdminAnnotation] != drain.CordonedByTandem {
		t.Fatalf("node-a unschedulable=%v record=%q, want cordoned by tandem", n.Spec.Unschedulable, n.Annotations[constants.CordonedByAdminAnnotation])
	}
	if app != 1 || agent != 1 {
		t.Fatalf("while held: app pods=%d agent pods=%d on node-a, want 1 and 1", app, agent)
	}

	// Relax: a second node gives the replacement a place to run; once it is
	// ready the PDB allows the last eviction and the drain completes.
	w.addNode(ctx, "node-b")
	w.waitFor(ctx, "drain acknowledged", func() (bool, string) {
		n := w.node(ctx, "node-a")
		app, agent := w.runningPods(ctx, "node-a")
		return n.Annotations[constants.LastAppliedDrainAnnotation] == req,
			fmt.Sprintf("lastApplied=%q app=%d agent=%d", n.Annotations[constants.LastAppliedDrainAnnotation], app, agent)
	})
	app, agent = w.runningPods(ctx, "node-a")
	if app != 0 || agent != 1 {
		t.Fatalf("after the drain: app pods=%d agent pods=%d on node-a, want 0 and 1 (DaemonSet pods stay)", app, agent)
	}
	if got := testutil.CollectAndCount(w.metrics.DrainErr); got != 0 {
		t.Fatalf("mcc_drain_err has %d series after a successful drain", got)
	}
	w.waitEvent(ctx, "node-a", drain.EventDrained)
	w.waitEvent(ctx, "node-a", drain.EventDrainAttemptFailed)

	unc := constants.UncordonRequest(config)
	w.annotate(ctx, "node-a", map[string]*string{constants.DesiredDrainAnnotation: &unc})
	w.waitFor(ctx, "uncordon acknowledged", func() (bool, string) {
		n := w.node(ctx, "node-a")
		return n.Annotations[constants.LastAppliedDrainAnnotation] == unc, fmt.Sprintf("lastApplied=%q", n.Annotations[constants.LastAppliedDrainAnnotation])
	})
	n = w.node(ctx, "node-a")
	if n.Spec.Unschedulable {
		t.Fatalf("node-a still cordoned after tandem's own drain cycle ended")
	}
	// Requests of a node are served in order, so by now any second run of
	// the drain (from a stale cache) would have been observed.
	if got := w.drains(); got != 1 {
		t.Fatalf("mcc_drain_duration_seconds has %d samples, want exactly 1 drain", got)
	}
	if v, ok := n.Annotations[constants.CordonedByAdminAnnotation]; ok {
		t.Fatalf("cordon record %q left on node-a", v)
	}
}

func (w world) adminCordonKept(t *testing.T) {
	ctx := t.Context()
	w.addNode(ctx, "node-c")
	w.waitFor(ctx, "agent running on node-c", func() (bool, string) {
		_, agent := w.runningPods(ctx, "node-c")
		return agent == 1, fmt.Sprintf("agent=%d", agent)
	})
	// A person cordons node-c for their own reasons.
	if _, err := w.cp.Kube.CoreV1().Nodes().Patch(ctx, "node-c", types.MergePatchType,
		[]byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(ctx, "cordon visible", func() (bool, string) { return w.node(ctx, "node-c").Spec.Unschedulable, "" })

	req := constants.DrainRequest(config)
	w.annotate(ctx, "node-c", map[string]*string{constants.DesiredDrainAnnotation: &req})
	w.waitFor(ctx, "drain acknowledged", func() (bool, string) {
		n := w.node(ctx, "node-c")
		return n.Annotations[constants.LastAppliedDrainAnnotation] == req, fmt.Sprintf("lastApplied=%q", n.Annotations[constants.LastAppliedDrainAnnotation])
	})
	if got := w.node(ctx, "node-c").Annotations[constants.CordonedByAdminAnnotation]; got != drain.CordonedBeforeDrain {
		t.Fatalf("record = %q, want %q", got, drain.CordonedBeforeDrain)
	}
	if _, agent := w.runningPods(ctx, "node-c"); agent != 1 {
		t.Fatalf("the DaemonSet pod was evicted from node-c")
	}

	unc := constants.UncordonRequest(config)
	w.annotate(ctx, "node-c", map[string]*string{constants.DesiredDrainAnnotation: &unc})
	w.waitFor(ctx, "uncordon acknowledged", func() (bool, string) {
		n := w.node(ctx, "node-c")
		return n.Annotations[constants.LastAppliedDrainAnnotation] == unc, fmt.Sprintf("lastApplied=%q", n.Annotations[constants.LastAppliedDrainAnnotation])
	})
	n := w.node(ctx, "node-c")
	if !n.Spec.Unschedulable {
		t.Fatalf("the uncordon lifted a cordon a person made before the drain")
	}
	if _, ok := n.Annotations[constants.CordonedByAdminAnnotation]; ok {
		t.Fatalf("cordon record left on node-c")
	}
	w.waitEvent(ctx, "node-c", drain.EventCordonKept)
	if got := w.drains(); got != 2 {
		t.Fatalf("%d drains observed, want 2 (node-a, node-c)", got)
	}
}

// --- helpers ---

// drains returns how many drains completed (samples of the duration histogram).
func (w world) drains() uint64 {
	w.t.Helper()
	var d dto.Metric
	if err := w.metrics.Duration.(prometheus.Metric).Write(&d); err != nil {
		w.t.Fatal(err)
	}
	return d.GetHistogram().GetSampleCount()
}

func (w world) addNode(ctx context.Context, name string) {
	w.t.Helper()
	if _, err := w.cp.Kube.CoreV1().Nodes().Create(ctx, framework.KwokNode(name, nil), metav1.CreateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	if err := framework.WaitForNodesReady(ctx, w.cp.Kube, name); err != nil {
		w.t.Fatalf("node %s not ready: %v", name, err)
	}
}

func (w world) node(ctx context.Context, name string) *corev1.Node {
	w.t.Helper()
	n, err := w.cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	return n
}

// annotate sets (or, for nil, removes) node annotations with a merge patch.
func (w world) annotate(ctx context.Context, name string, ann map[string]*string) {
	w.t.Helper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.cp.Kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

// runningPods counts the app and agent pods on node that are running and
// not being deleted.
func (w world) runningPods(ctx context.Context, node string) (app, agent int) {
	w.t.Helper()
	pods, err := w.cp.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String(),
	})
	if err != nil {
		w.t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			continue
		}
		switch p.Labels["app"] {
		case "app":
			app++
		case "agent":
			agent++
		}
	}
	return app, agent
}

// waitFor polls cond until it holds, logging each new state it reports so a
// stuck test shows where it stopped.
func (w world) waitFor(ctx context.Context, what string, cond func() (bool, string)) {
	w.t.Helper()
	last := ""
	ctx, cancel := context.WithTimeout(ctx, framework.DefaultWait) // its own bound, not the test binary's -timeout
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
		ok, state := cond()
		if state != last && state != "" {
			w.t.Logf("waiting for %s: %s", what, state)
			last = state
		}
		return ok, nil
	})
	if err != nil {
		w.t.Fatalf("waiting for %s: %v after %s (last state: %s)", what, err, framework.DefaultWait, last)
	}
}

func (w world) waitEvent(ctx context.Context, node, reason string) {
	w.t.Helper()
	w.waitFor(ctx, fmt.Sprintf("event %s on %s", reason, node), func() (bool, string) {
		evs, err := w.cp.Kube.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
			FieldSelector: fields.AndSelectors(
				fields.OneTermEqualSelector("involvedObject.name", node),
				fields.OneTermEqualSelector("reason", reason)).String(),
		})
		if err != nil {
			return false, err.Error()
		}
		return len(evs.Items) > 0, ""
	})
}

func podTemplate(app string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: app, Image: "pause"}},
		},
	}
}

// deployment is scheduled by kube-scheduler; node-a is the only node at first.
func deployment(name string, replicas int32) *appsv1.Deployment {
	tpl := podTemplate(name)
	tpl.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: tpl,
		},
	}
}

func daemonSet(name string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: podTemplate(name),
		},
	}
}
