//go:build integration

// Package render_test runs the render controller against a real
// kube-apiserver with the MachineConfig CRDs.
package render_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/controller/render"
	"github.com/tandem-mco/tandem/pkg/mcfg"
	"github.com/tandem-mco/tandem/test/framework"
)

func fileConfig(path, data string) string {
	return fmt.Sprintf(`{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":%q,"mode":420,"contents":{"source":"data:,%s"}}]}}`, path, data)
}

func machineConfig(name, role, raw string, kargs ...string) *mcfgv1.MachineConfig {
	mc := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{constants.MachineConfigRoleLabel: role}},
		Spec:       mcfgv1.MachineConfigSpec{KernelArguments: kargs},
	}
	if raw != "" {
		mc.Spec.Config = runtime.RawExtension{Raw: []byte(raw)}
	}
	return mc
}

func pool(name string, roles ...string) *mcfgv1.MachineConfigPool {
	return &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: constants.MachineConfigRoleLabel, Operator: metav1.LabelSelectorOpIn, Values: roles},
			}},
			NodeSelector: &metav1.LabelSelector{MatchLabels: map[string]string{constants.NodeRoleLabelPrefix + name: ""}},
		},
	}
}

type env struct {
	t  *testing.T
	cp *framework.ControlPlane
}

// waitPool polls the pool until cond holds, logging each new state so a
// hang shows where it stopped.
func (e env) waitPool(ctx context.Context, name, what string, cond func(*mcfgv1.MachineConfigPool) bool) *mcfgv1.MachineConfigPool {
	e.t.Helper()
	var got *mcfgv1.MachineConfigPool
	last := ""
	ctx, cancel := context.WithTimeout(ctx, framework.DefaultWait) // its own bound, not the test binary's -timeout
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := e.cp.MCO.MachineconfigurationV1().MachineConfigPools().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		state := fmt.Sprintf("spec=%s status=%s conditions=%v", p.Spec.Configuration.Name, p.Status.Configuration.Name, p.Status.Conditions)
		if state != last {
			e.t.Logf("pool %s (waiting for %s): %s", name, what, state)
			last = state
		}
		got = p
		return cond(p), nil
	})
	if err != nil {
		e.t.Fatalf("waiting for pool %s: %s: %v (after %s; last seen: %s)", name, what, err, framework.DefaultWait, last)
	}
	return got
}

func (e env) exists(ctx context.Context, name string) bool {
	e.t.Helper()
	_, err := e.cp.MCO.MachineconfigurationV1().MachineConfigs().Get(ctx, name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		e.t.Fatalf("getting %s: %v", name, err)
	}
	return err == nil
}

func (e env) waitGone(ctx context.Context, name string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, framework.DefaultWait)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		return !e.exists(ctx, name), nil
	})
	if err != nil {
		e.t.Fatalf("waiting for %s to be deleted: %v (after %s it still exists)", name, err, framework.DefaultWait)
	}
}

func renderDegraded(p *mcfgv1.MachineConfigPool) *mcfgv1.MachineConfigPoolCondition {
	return render.GetCondition(&p.Status, mcfgv1.MachineConfigPoolRenderDegraded)
}

func TestRender(t *testing.T) {
	ctx := t.Context()
	cp := framework.NewControlPlane(t, framework.ControlPlaneOptions{Name: "render"})
	e := env{t: t, cp: cp}
	mcs := cp.MCO.MachineconfigurationV1().MachineConfigs()
	pools := cp.MCO.MachineconfigurationV1().MachineConfigPools()

	mcfgFactory := mcfginformers.NewSharedInformerFactory(cp.MCO, 0)
	kubeFactory := informers.NewSharedInformerFactory(cp.Kube, 0)
	ctrl, err := render.NewController(cp.Kube, cp.MCO,
		mcfgFactory.Machineconfiguration().V1().MachineConfigPools(),
		mcfgFactory.Machineconfiguration().V1().MachineConfigs(),
		kubeFactory.Core().V1().Nodes(),
		render.Options{
			Defaults:          mcfg.Defaults{OSImageURL: "os-image:default"},
			ControllerVersion: "test",
			RenderDelay:       -1,
			GCGracePeriod:     time.Nanosecond,
		})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	t.Cleanup(func() { stop(); <-done })
	mcfgFactory.Start(runCtx.Done())
	kubeFactory.Start(runCtx.Done())
	go func() { done <- ctrl.Run(runCtx, 2) }()

	for _, mc := range []*mcfgv1.MachineConfig{
		machineConfig("00-worker", "worker", fileConfig("/etc/tandem/a", "one")),
		machineConfig("01-worker-kargs", "worker", "", "nosmt"),
		machineConfig("00-master", "master", fileConfig("/etc/tandem/master", "m")),
		machineConfig("10-infra", "infra", fileConfig("/etc/tandem/a", "infra"), "isolcpus=1"),
	} {
		if _, err := mcs.Create(ctx, mc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []*mcfgv1.MachineConfigPool{pool("worker", "worker"), pool("infra", "worker", "infra")} {
		if _, err := pools.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// 1. First render: spec and (bootstrap) status point at the rendered config.
	p := e.waitPool(ctx, "worker", "first render", func(p *mcfgv1.MachineConfigPool) bool {
		c := renderDegraded(p)
		return p.Spec.Configuration.Name != "" && p.Status.Configuration.Name != "" && c != nil && c.Status == corev1.ConditionFalse
	})
	r1 := p.Spec.Configuration.Name
	if !mcfg.IsRenderedFor("worker", r1) || p.Status.Configuration.Name != r1 {
		t.Fatalf("spec=%s status=%s, want both rendered-worker-<hash>", r1, p.Status.Configuration.Name)
	}
	var sources []string
	for _, s := range p.Spec.Configuration.Source {
		sources = append(sources, s.Name)
	}
	if !reflect.DeepEqual(sources, []string{"00-worker", "01-worker-kargs"}) {
		t.Fatalf("source = %v", sources)
	}
	rendered, err := mcs.Get(ctx, r1, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(rendered); ref == nil || ref.Kind != "MachineConfigPool" || ref.Name != "worker" {
		t.Fatalf("rendered config controller = %+v", ref)
	}
	if rendered.Spec.OSImageURL != "os-image:default" || !reflect.DeepEqual(rendered.Spec.KernelArguments, []string{"nosmt"}) {
		t.Fatalf("rendered spec osImageURL=%q kargs=%v", rendered.Spec.OSImageURL, rendered.Spec.KernelArguments)
	}
	// The daemon's view: the stored rendered config parses back and keeps its name.
	ign, err := mcfg.Parse(rendered)
	if err != nil {
		t.Fatalf("rendered config does not parse: %v", err)
	}
	if len(ign.Storage.Files) != 1 || ign.Storage.Files[0].Path != "/etc/tandem/a" || *ign.Storage.Files[0].Contents.Source != "data:,one" {
		t.Fatalf("rendered files = %+v", ign.Storage.Files)
	}
	if name, _ := mcfg.RenderedName("worker", rendered.Spec); name != r1 {
		t.Fatalf("stored spec hashes to %s, not its name %s", name, r1)
	}

	// The custom pool merges worker configs first, then its own, which win.
	ip := e.waitPool(ctx, "infra", "first render", func(p *mcfgv1.MachineConfigPool) bool { return p.Spec.Configuration.Name != "" })
	infraCfg, err := mcs.Get(ctx, ip.Spec.Configuration.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	infraIgn, err := mcfg.Parse(infraCfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := *infraIgn.Storage.Files[0].Contents.Source; got != "data:,infra" {
		t.Fatalf("infra pool /etc/tandem/a = %q, want the infra config's", got)
	}

	// 2. A node is told to go to r2; r2 must survive the next change while the
	// node refers to it, and go once the node moves on.
	if _, err := mcs.Update(ctx, withFile(t, ctx, e, "00-worker", "two"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	p = e.waitPool(ctx, "worker", "second render", func(p *mcfgv1.MachineConfigPool) bool { return p.Spec.Configuration.Name != r1 })
	r2 := p.Spec.Configuration.Name
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Annotations: map[string]string{
		constants.CurrentConfigAnnotation: r1,
		constants.DesiredConfigAnnotation: r2,
	}}}
	if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := mcs.Update(ctx, withFile(t, ctx, e, "00-worker", "three"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	p = e.waitPool(ctx, "worker", "third render", func(p *mcfgv1.MachineConfigPool) bool {
		return p.Spec.Configuration.Name != r2 && p.Spec.Configuration.Name != r1
	})
	r3 := p.Spec.Configuration.Name
	r3Obj, err := mcs.Get(ctx, r3, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r3Version := r3Obj.ResourceVersion
	// r3 exists now; r1 is the pool's status config and the node's current
	// one; r2 is the node's desired one. None may be collected.
	for _, n := range []string{r1, r2, r3, ip.Spec.Configuration.Name} {
		if !e.exists(ctx, n) {
			t.Fatalf("%s was deleted while in use", n)
		}
	}
	node, err = cp.Kube.CoreV1().Nodes().Get(ctx, "worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Annotations[constants.DesiredConfigAnnotation] = r3
	if _, err := cp.Kube.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitGone(ctx, r2)
	if !e.exists(ctx, r1) || !e.exists(ctx, r3) {
		t.Fatalf("collecting %s took configs still in use", r2)
	}

	// 3. An invalid MachineConfig degrades the pool and leaves r3 in force.
	if _, err := mcs.Create(ctx, machineConfig("50-worker-bad", "worker",
		`{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"relative/path"}]}}`), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p = e.waitPool(ctx, "worker", "RenderDegraded", func(p *mcfgv1.MachineConfigPool) bool {
		c := renderDegraded(p)
		return c != nil && c.Status == corev1.ConditionTrue
	})
	c := renderDegraded(p)
	if c.Reason != render.ReasonInvalidMachineConfig || !strings.Contains(c.Message, "50-worker-bad") {
		t.Fatalf("RenderDegraded = %+v, want reason %s naming 50-worker-bad", c, render.ReasonInvalidMachineConfig)
	}
	if p.Spec.Configuration.Name != r3 || !e.exists(ctx, r3) {
		t.Fatalf("degraded pool targets %s (exists=%v), want %s kept", p.Spec.Configuration.Name, e.exists(ctx, r3), r3)
	}

	// 4. Removing it heals the pool; the same content renders to the same name.
	if err := mcs.Delete(ctx, "50-worker-bad", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	p = e.waitPool(ctx, "worker", "healed", func(p *mcfgv1.MachineConfigPool) bool {
		c := renderDegraded(p)
		return c != nil && c.Status == corev1.ConditionFalse
	})
	if p.Spec.Configuration.Name != r3 {
		t.Fatalf("after healing the pool targets %s, want %s", p.Spec.Configuration.Name, r3)
	}

	// ensureRendered ran on the existing r3 while healing: it must have found
	// the stored content matching its name and left it alone.
	after, err := mcs.Get(ctx, r3, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != r3Version {
		t.Fatalf("%s was rewritten (resourceVersion %s -> %s)", r3, r3Version, after.ResourceVersion)
	}
}

// withFile returns the named MachineConfig with its file content set to data.
func withFile(t *testing.T, ctx context.Context, e env, name, data string) *mcfgv1.MachineConfig {
	t.Helper()
	mc, err := e.cp.MCO.MachineconfigurationV1().MachineConfigs().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mc.Spec.Config = runtime.RawExtension{Raw: []byte(fileConfig("/etc/tandem/a", data))}
	return mc
}
