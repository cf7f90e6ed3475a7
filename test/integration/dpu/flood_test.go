//go:build integration

package dpu_test

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestHostMaintenanceFlood: 100 Reboot requests for 6 hosts arrive at once,
// among them duplicates, requests for nodes that do not exist and for
// masters. The oracle watches the nodes themselves (cordoned, not Ready, or
// updating: the MCO's unavailability) and the apiserver's own request
// counters, not the controller's bookkeeping:
//   - the worker pool's maxUnavailable (2) is never exceeded;
//   - every request ends Completed or Rejected with a reason;
//   - apiserver writes stay within a bound linear in requests and hosts.
func TestHostMaintenanceFlood(t *testing.T) {
	const (
		workers        = 6
		masters        = 3
		requests       = 100
		maxUnavailable = 2
	)
	ctx := t.Context()
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "tenant"})
	framework.NewKwok(t, cp)
	createPool(t, cp, "worker", constants.NodeRoleLabelPrefix+constants.WorkerPool, tenantCfg, maxUnavailable)
	createPool(t, cp, "master", constants.NodeRoleLabelPrefix+constants.MasterPool, "rendered-master-a", 1)
	var names []string
	for i := range workers {
		names = append(names, fmt.Sprintf("w%d", i))
		createNode(t, cp, names[i], constants.WorkerPool, tenantCfg, nil)
	}
	for i := range masters {
		n := fmt.Sprintf("m%d", i)
		createNode(t, cp, n, constants.MasterPool, "rendered-master-a", nil)
		names = append(names, n)
	}
	waitNodesReady(t, cp.Kube, names...)
	oracle := watchUnavailable(t, cp, constants.NodeRoleLabelPrefix+constants.WorkerPool, maxUnavailable)
	daemons := startStandInDaemons(t, cp)
	runTenantController(t, cp, dpu.TenantOptions{DrainAttemptTimeout: 5 * time.Second, DrainRetryDelay: time.Second, Resync: 2 * time.Second})
	w := &tenantWorld{cp: cp, hm: hmClient(t, cp.RESTConfig), daemons: daemons}

	// The requests: per ten, six for the workers (so each worker gets ten,
	// all but one duplicates), two for nodes that do not exist, two for masters.
	target := func(i int) string {
		switch k := i % 10; {
		case k < workers:
			return fmt.Sprintf("w%d", k)
		case k < 8:
			return fmt.Sprintf("ghost-%d", i)
		default:
			return fmt.Sprintf("m%d", i%masters)
		}
	}
	writesBefore := apiserverWrites(t, cp)
	var wg sync.WaitGroup
	errs := make(chan error, requests)
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.hm.Create(ctx, &dpuv1.HostMaintenance{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("flood-%03d", i)},
				Spec: dpuv1.HostMaintenanceSpec{NodeName: target(i), Action: dpuv1.ActionReboot, Requester: "flood"}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	var final []dpuv1.HostMaintenance
	waitFor(t, "every request Completed or Rejected", 10*time.Minute, func() (bool, string) {
		list, err := w.hm.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		final = list.Items
		phases := map[dpuv1.HostMaintenancePhase]int{}
		for _, hm := range list.Items {
			phases[hm.Status.Phase]++
		}
		return len(list.Items) == requests && phases[dpuv1.PhaseCompleted]+phases[dpuv1.PhaseRejected] == requests,
			fmt.Sprintf("phases %v", phases)
	})
	for _, n := range names {
		w.waitReleased(t, n, false)
	}
	writesAfter := apiserverWrites(t, cp)

	completed, rejected := map[string]int{}, map[string]int{}
	for _, hm := range final {
		switch hm.Status.Phase {
		case dpuv1.PhaseCompleted:
			completed[hm.Spec.NodeName]++
			if !meta.IsStatusConditionTrue(hm.Status.Conditions, dpuv1.ConditionRebooted) {
				t.Errorf("%s Completed without the Rebooted condition: %+v", hm.Name, hm.Status)
			}
		case dpuv1.PhaseRejected:
			c := meta.FindStatusCondition(hm.Status.Conditions, dpuv1.ConditionAdmitted)
			if c == nil || c.Reason == "" || hm.Status.Message == "" {
				t.Errorf("%s Rejected without a reason: %+v", hm.Name, hm.Status)
				continue
			}
			rejected[c.Reason]++
			want := dpuv1.ReasonDuplicate
			switch {
			case strings.HasPrefix(hm.Spec.NodeName, "ghost-"):
				want = dpuv1.ReasonNodeNotFound
			case strings.HasPrefix(hm.Spec.NodeName, "m"):
				want = dpuv1.ReasonControlPlane
			}
			if c.Reason != want {
				t.Errorf("%s for %s rejected with %s, want %s", hm.Name, hm.Spec.NodeName, c.Reason, want)
			}
		}
	}
	for i := range workers {
		n := fmt.Sprintf("w%d", i)
		if completed[n] != 1 || len(daemons.served(n)) != 1 {
			t.Errorf("%s: %d requests completed, %d reboots; want one of each (the other nine are duplicates)",
				n, completed[n], len(daemons.served(n)))
		}
	}
	for i := range masters {
		if n := fmt.Sprintf("m%d", i); len(daemons.served(n)) != 0 {
			t.Errorf("master %s rebooted", n)
		}
	}
	if rejected[dpuv1.ReasonDuplicate] != workers*9 || rejected[dpuv1.ReasonNodeNotFound] != 20 || rejected[dpuv1.ReasonControlPlane] != 20 {
		t.Errorf("rejections by reason %v, want %d Duplicate, 20 NodeNotFound, 20 ControlPlaneNode", rejected, workers*9)
	}
	seen, violations := oracle.result()
	for _, v := range violations {
		t.Error(v)
	}
	// Writes: besides the test's own creates and the stand-in daemons'
	// reboot acknowledgements, a rejection is one status write; a served
	// request at most six (Pending, a move in the queue, Draining, Drained,
	// Rebooting, Completed) and its host at most four node writes (hold,
	// reboot request, release, a retry). A controller that rewrites what
	// did not change, or retries in a loop, goes past this.
	writes := writesAfter.total - writesBefore.total
	own := requests + workers
	bound := own + requests + workers*(6+4)
	fmt.Printf("dpu-flood: requests=%d hosts=%d completed=%d rejected=%d max_unavailable_seen=%d max_unavailable=%d writes=%d bound=%d\n",
		requests, workers, len(final)-sum(rejected), sum(rejected), seen, maxUnavailable, writes, bound)
	t.Logf("apiserver writes by resource: %v", writesAfter.minus(writesBefore))
	if writes > bound {
		t.Errorf("%d apiserver writes for %d requests on %d hosts, want at most %d", writes, requests, workers, bound)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// unavailabilityOracle counts, on every node event, the pool's nodes that
// are cordoned, not Ready, or updating (the MCO's notion of unavailable),
// and records the most it saw and every excess.
type unavailabilityOracle struct {
	mu         sync.Mutex
	max        int
	violations []string
}

func (o *unavailabilityOracle) result() (int, []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.max, append([]string(nil), o.violations...)
}

func watchUnavailable(t *testing.T, cp *framework.ControlPlane, poolLabel string, limit int) *unavailabilityOracle {
	o := &unavailabilityOracle{}
	f := informers.NewSharedInformerFactory(cp.Kube, 0)
	inf := f.Core().V1().Nodes().Informer()
	check := func(any) {
		var down []string
		for _, obj := range inf.GetStore().List() {
			n := obj.(*corev1.Node)
			if _, in := n.Labels[poolLabel]; !in {
				continue
			}
			a := n.Annotations
			if n.Spec.Unschedulable || !framework.NodeReady(n) || a[constants.DesiredConfigAnnotation] != a[constants.CurrentConfigAnnotation] {
				down = append(down, n.Name)
			}
		}
		sort.Strings(down)
		o.mu.Lock()
		defer o.mu.Unlock()
		o.max = max(o.max, len(down))
		if len(down) > limit {
			o.violations = append(o.violations, fmt.Sprintf("%d nodes unavailable, maxUnavailable %d: %v", len(down), limit, down))
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: check, UpdateFunc: func(_, n any) { check(n) }, DeleteFunc: check})
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	syncWithin(t, f)
	t.Cleanup(func() { cancel(); f.Shutdown() })
	return o
}

// writeCounts are the kube-apiserver's own counts of write requests
// (apiserver_request_total, verbs POST, PUT, PATCH, DELETE) to nodes and
// HostMaintenance requests, by resource (events listed apart).
type writeCounts struct {
	total      int
	byResource map[string]int
}

func (w writeCounts) minus(before writeCounts) map[string]int {
	out := map[string]int{}
	for r, n := range w.byResource {
		if d := n - before.byResource[r]; d != 0 {
			out[r] = d
		}
	}
	return out
}

func apiserverWrites(t *testing.T, cp *framework.ControlPlane) writeCounts {
	t.Helper()
	raw, err := cp.Kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	out := writeCounts{byResource: map[string]int{}}
	f, ok := families["apiserver_request_total"]
	if !ok {
		t.Fatal("the kube-apiserver exports no apiserver_request_total")
	}
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		switch labels["verb"] {
		case "POST", "PUT", "PATCH", "DELETE":
		default:
			continue
		}
		r := labels["resource"]
		if labels["subresource"] != "" {
			r += "/" + labels["subresource"]
		}
		switch r {
		case "nodes", dpuv1.HostMaintenanceResource, dpuv1.HostMaintenanceResource + "/status":
		case "events":
			// Reported, not bounded: one per phase change, by design.
			out.byResource[r] += int(m.GetCounter().GetValue())
			continue
		default:
			continue // kwok's heartbeats (nodes/status, leases), the apiserver's own bookkeeping
		}
		n := int(m.GetCounter().GetValue())
		out.byResource[r] += n
		out.total += n
	}
	return out
}
