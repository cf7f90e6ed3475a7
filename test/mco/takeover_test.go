//go:build mco

package mco

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcoworld"
)

// TestTakeoverFromTheRealMCO starts from state the real MCO made: the
// release's MCO image is the stock one, so the operator's controller pod
// runs the MCO's own controller (built unchanged from the pinned source,
// every controller including its node controller), and each node's daemon
// pod acts as the stock MCD (drain, pull, reboot; mcoworld's
// stockDaemonAdditions). The cluster installs, then a MachineConfig is
// rolled out by the MCO alone. Then the release's MCO image becomes
// tandem's (what `oc adm upgrade --to-image` to a payload built with
// docs/deploy.md does at the same version): the operator rolls its
// controller and daemons to tandem's. tandem must take the nodes as they
// are: no reboot, no drain, no rendered config renamed.
func TestTakeoverFromTheRealMCO(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	dir := t.TempDir()
	reg := startRegistry(ctx, t, dir)
	os1 := synthesize(ctx, t, reg, 1)

	masters, workers, nodes := fiveNodes()
	stock := mcoworld.NewRelease("4.21.0-tandem.1", "registry.tandem.test", os1, "")
	stockImage := stock.Images["machine-config-operator"]
	obs := &takeoverObserver{}
	obs.reset()
	w, err := mcoworld.Start(ctx, mcoworld.Options{
		Dir: dir, Masters: masters, Workers: workers, InitialImage: os1, Registry: reg, Install: true,
		StockImage: stockImage, OnBoot: obs.boot,
	}, stock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	if err := waitRelease(ctx, w, stock, nodes, 25*time.Minute); err != nil {
		t.Fatalf("installing %s with the stock MCO: %v\n%s", stock.Version, err, w.Diagnose(ctx))
	}
	if img := w.ProcessImage("controller"); img != stockImage {
		t.Fatalf("the controller runs from %q, want the stock image %q", img, stockImage)
	}

	// A day-2 change rolled out by the MCO alone: its render, its node
	// controller, the stock daemons.
	before := poolTargets(ctx, t, w)
	obs.reset()
	stopWatch := obs.watchCordons(ctx, t, w)
	defer stopWatch()
	if _, err := w.CP.MCO.MachineconfigurationV1().MachineConfigs().Create(ctx, fileMC("99-worker-takeover", "worker", "/etc/tandem-takeover", "rolled out by the MCO\n"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var stockTarget string
	if err := framework.Await(ctx, "the MCO rendering the worker pool's new config", 5*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
		stockTarget = poolTargets(ctx, t, w)["worker"]
		return stockTarget != before["worker"], "worker pool targets " + stockTarget, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := framework.Await(ctx, "the MCO rolling "+stockTarget+" out to the workers", 15*time.Minute, 3*time.Second, func(ctx context.Context) (bool, string, error) {
		for n, a := range nodeConfigs(ctx, t, w, workers) {
			if a != fmt.Sprintf("current=%s desired=%s state=Done", stockTarget, stockTarget) {
				return false, n + ": " + a, nil
			}
		}
		return true, "", nil
	}); err != nil {
		t.Fatalf("%v\n%s", err, w.Diagnose(ctx))
	}
	if err := waitRelease(ctx, w, stock, nodes, 5*time.Minute); err != nil {
		t.Fatalf("after the MCO's rollout of 99-worker-takeover: %v\n%s", err, w.Diagnose(ctx))
	}
	stockDrains, stockReboots := obs.snapshot()
	t.Logf("the stock MCO rolled 99-worker-takeover out: reboots=%d %v drains=%d %v", stockReboots, obs.rebootedNodes(), stockDrains, obs.cordonedNodes())

	// The switch: the same release with tandem's MCO image. The MCO's
	// templates name the MCO image in two first-boot units
	// (templates/common/_base/units/machine-config-daemon-pull.service.yaml
	// and machine-config-daemon-firstboot.service.yaml at the pinned
	// commit), so any new MCO image re-renders every pool, the stock
	// MCO's own upgrade as well; a unit without a disruption policy means a
	// reboot (pkg/daemon/update.go). The takeover's documented step
	// (docs/adopting-tandem.md) gives both units the None policy first:
	// they run only while /etc/ignition-machine-config-encapsulated.json
	// exists, on a machine's first boot.
	setFirstbootUnitsPolicy(ctx, t, w)
	targets := poolTargets(ctx, t, w)
	tandem := stock
	tandem.Images = map[string]string{}
	for k, v := range stock.Images {
		tandem.Images[k] = v
	}
	// Another registry's MCO image: tandem's (mcoworld runs any image but
	// StockImage as tandem's build).
	tandemImage := mcoworld.NewRelease(stock.Version, "registry.tandem.test/tandem", os1, "").Images["machine-config-operator"]
	tandem.Images["machine-config-operator"] = tandemImage
	obs.reset()
	if _, err := w.CVO.Apply(ctx, tandem); err != nil {
		t.Fatal(err)
	}
	var newTargets map[string]string
	if err := framework.Await(ctx, "every pool re-rendered for the new MCO image", 10*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
		newTargets = poolTargets(ctx, t, w)
		for pool, name := range newTargets {
			if name == targets[pool] {
				return false, "pool " + pool + " still targets " + name, nil
			}
		}
		return true, "", nil
	}); err != nil {
		t.Fatalf("%v\n%s", err, w.Diagnose(ctx))
	}
	if err := framework.Await(ctx, "every node Done on its pool's new config", 15*time.Minute, 3*time.Second, func(ctx context.Context) (bool, string, error) {
		configs := nodeConfigs(ctx, t, w, nodes)
		for _, n := range nodes {
			pool := "worker"
			if slices.Contains(masters, n) {
				pool = "master"
			}
			if want := fmt.Sprintf("current=%s desired=%s state=Done", newTargets[pool], newTargets[pool]); configs[n] != want {
				return false, n + ": " + configs[n], nil
			}
		}
		return true, "", nil
	}); err != nil {
		t.Fatalf("%v\n%s", err, w.Diagnose(ctx))
	}
	if err := awaitTandemInCharge(ctx, w, nodes, tandemImage, 10*time.Minute); err != nil {
		t.Fatalf("taking over: %v\n%s", err, w.Diagnose(ctx))
	}
	drains, reboots := obs.snapshot()
	// renamed: the pools whose rendered config changed at the switch. The
	// MCO's own render does it (the MCO image in two units); judged: the
	// new config differs from the old in those two units' contents only.
	renamed := 0
	for pool, name := range newTargets {
		if name != targets[pool] {
			renamed++
			if diff := configDiff(ctx, t, w, targets[pool], name); !slices.Equal(diff, firstbootUnits) {
				t.Errorf("pool %s: %s -> %s changes %v, want only the units that name the MCO image %v", pool, targets[pool], name, diff, firstbootUnits)
			}
		}
	}
	if reboots != 0 || drains != 0 {
		t.Errorf("the takeover disrupted nodes: reboots=%d (%v) drains=%d (%v)", reboots, obs.rebootedNodes(), drains, obs.cordonedNodes())
	}
	// The same observers saw the stock side disrupt: the zeros above are
	// not blind.
	if stockReboots == 0 || stockDrains == 0 {
		t.Errorf("the stock MCO's rollout of a file: reboots=%d drains=%d, want both > 0 (else the checks above hold vacuously)", stockReboots, stockDrains)
	}
	fmt.Printf("takeover-real: nodes=%d reboots=%d drains=%d renamed=%d\n", len(nodes), reboots, drains, renamed)
}

// firstbootUnits are the units of the MCO's templates that name the MCO
// image (sorted).
var firstbootUnits = []string{"machine-config-daemon-firstboot.service", "machine-config-daemon-pull.service"}

// firstbootUnitsPatch is the patch docs/adopting-tandem.md gives.
const firstbootUnitsPatch = `{"spec":{"nodeDisruptionPolicy":{"units":[
  {"name":"machine-config-daemon-pull.service","actions":[{"type":"None"}]},
  {"name":"machine-config-daemon-firstboot.service","actions":[{"type":"None"}]}]}}}`

// setFirstbootUnitsPolicy gives firstbootUnits the None disruption policy
// in MachineConfiguration cluster and waits for the operator to merge it
// into the status the daemons read.
func setFirstbootUnitsPolicy(ctx context.Context, t *testing.T, w *mcoworld.World) {
	t.Helper()
	op, err := operatorclient.NewForConfig(w.CP.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	mcs := op.OperatorV1().MachineConfigurations()
	if err := framework.Await(ctx, "the None policy for the first-boot units in MachineConfiguration cluster", 5*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
		mc, err := mcs.Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		set := 0
		for _, u := range mc.Spec.NodeDisruptionPolicy.Units {
			if slices.Contains(firstbootUnits, string(u.Name)) {
				set++
			}
		}
		if set < len(firstbootUnits) {
			// The merge patch of docs/adopting-tandem.md, as `oc patch
			// --type merge` sends it.
			if _, err := mcs.Patch(ctx, "cluster", types.MergePatchType, []byte(firstbootUnitsPatch), metav1.PatchOptions{}); err != nil {
				return false, err.Error(), nil
			}
			return false, "spec patched", nil
		}
		merged := 0
		for _, u := range mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Units {
			if slices.Contains(firstbootUnits, string(u.Name)) {
				merged++
			}
		}
		return merged == len(firstbootUnits), fmt.Sprintf("%d of %d in the status", merged, len(firstbootUnits)), nil
	}); err != nil {
		t.Fatal(err)
	}
}

// configDiff names what differs between two rendered configs: the paths
// of files and the names of units whose entries differ, and "other" for
// anything else in the spec.
func configDiff(ctx context.Context, t *testing.T, w *mcoworld.World, a, b string) []string {
	t.Helper()
	parse := func(name string) (map[string]string, mcfgv1.MachineConfigSpec) {
		mc, err := w.CP.MCO.MachineconfigurationV1().MachineConfigs().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ign struct {
			Storage struct {
				Files []json.RawMessage `json:"files"`
			} `json:"storage"`
			Systemd struct {
				Units []json.RawMessage `json:"units"`
			} `json:"systemd"`
		}
		if err := json.Unmarshal(mc.Spec.Config.Raw, &ign); err != nil {
			t.Fatal(err)
		}
		entries := map[string]string{}
		for _, group := range [][]json.RawMessage{ign.Storage.Files, ign.Systemd.Units} {
			for _, raw := range group {
				var id struct{ Path, Name string }
				if err := json.Unmarshal(raw, &id); err != nil {
					t.Fatal(err)
				}
				entries[id.Path+id.Name] = string(raw)
			}
		}
		spec := mc.Spec
		spec.Config = runtime.RawExtension{}
		return entries, spec
	}
	ea, sa := parse(a)
	eb, sb := parse(b)
	var out []string
	for k, v := range ea {
		if eb[k] != v {
			out = append(out, k)
		}
	}
	for k := range eb {
		if _, ok := ea[k]; !ok {
			out = append(out, k)
		}
	}
	if !reflect.DeepEqual(sa, sb) {
		out = append(out, "other")
	}
	slices.Sort(out)
	return out
}

// awaitTandemInCharge waits until tandem's processes run the cluster:
// the controller and every node's daemon started from tandem's image,
// the controller's planner has judged the master pool (the
// EtcdLeaderOrdering condition, which only tandem writes), and every
// daemon has found nothing to do but wait
// (tandem_daemon_waiting_since_timestamp_seconds set).
func awaitTandemInCharge(ctx context.Context, w *mcoworld.World, nodes []string, image string, bound time.Duration) error {
	return framework.Await(ctx, "tandem in charge of every node", bound, 3*time.Second, func(ctx context.Context) (bool, string, error) {
		if img := w.ProcessImage("controller"); img != image {
			return false, "the controller runs from " + img, nil
		}
		p, err := w.CP.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		if node.FindCondition(p.Status.Conditions, constants.PoolEtcdLeaderOrderingCondition) == nil {
			return false, "the master pool has no " + constants.PoolEtcdLeaderOrderingCondition + " condition yet (tandem's planner has not judged it)", nil
		}
		for _, n := range nodes {
			key := "daemon/" + n
			if img := w.ProcessImage(key); img != image {
				return false, fmt.Sprintf("%s's daemon runs from %s", n, img), nil
			}
			v, err := scrapeGauge(ctx, w.MetricsURL(key), "tandem_daemon_waiting_since_timestamp_seconds")
			if err != nil {
				return false, fmt.Sprintf("%s's daemon: %v", n, err), nil
			}
			if v == 0 {
				return false, n + "'s daemon is acting", nil
			}
		}
		return true, "", nil
	})
}

// scrapeGauge reads one unlabelled gauge from a process's metrics.
func scrapeGauge(ctx context.Context, url, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("no %s in %s", name, url)
}

// fileMC is a MachineConfig for pool with one file.
func fileMC(name, pool, path, content string) *mcfgv1.MachineConfig {
	ign := fmt.Sprintf(`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":%q,"mode":420,"overwrite":true,"contents":{"source":"data:,%s"}}]}}`,
		path, url.PathEscape(content))
	return &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{constants.MachineConfigRoleLabel: pool}},
		Spec:       mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: []byte(ign)}},
	}
}

// nodeConfigs is each node's current/desired/state, as one string.
func nodeConfigs(ctx context.Context, t *testing.T, w *mcoworld.World, nodes []string) map[string]string {
	out := map[string]string{}
	for _, n := range nodes {
		obj, err := w.CP.Kube.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := obj.Annotations
		out[n] = fmt.Sprintf("current=%s desired=%s state=%s", a[constants.CurrentConfigAnnotation], a[constants.DesiredConfigAnnotation], a[constants.StateAnnotation])
	}
	return out
}

// takeoverObserver counts reboots (from the simulated nodes) and cordons
// (from a watch of the Nodes: every update is seen, so a short cordon
// counts too).
type takeoverObserver struct {
	mu       sync.Mutex
	reboots  map[string]int
	cordoned map[string]bool
}

func (o *takeoverObserver) boot(node string, ev framework.BootEvent) {
	if ev.Cause == "start" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reboots[node]++
}

func (o *takeoverObserver) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reboots, o.cordoned = map[string]int{}, map[string]bool{}
}

func (o *takeoverObserver) snapshot() (drains, reboots int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range o.reboots {
		reboots += n
	}
	return len(o.cordoned), reboots
}

func (o *takeoverObserver) rebootedNodes() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]int{}
	for k, v := range o.reboots {
		out[k] = v
	}
	return out
}

func (o *takeoverObserver) cordonedNodes() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for n := range o.cordoned {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// watchCordons records every node that becomes unschedulable from now.
func (o *takeoverObserver) watchCordons(ctx context.Context, t *testing.T, w *mcoworld.World) func() {
	wi, err := w.CP.Kube.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for ev := range wi.ResultChan() {
			n, ok := ev.Object.(*corev1.Node)
			if !ok || ev.Type == watch.Deleted || !n.Spec.Unschedulable {
				continue
			}
			o.mu.Lock()
			o.cordoned[n.Name] = true
			o.mu.Unlock()
		}
	}()
	return wi.Stop
}
