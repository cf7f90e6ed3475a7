//go:build integration

package daemon_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
)

// drainer stands in for the drain controller (cordon on drain-<config>,
// uncordon on uncordon-<config>, then lastAppliedDrain) and, for nodes
// that ask for it, for the node controller's grant: desiredConfig is set
// to stageConfig once the daemon reports it staged.
type drainer struct {
	cp *framework.ControlPlane

	mu     sync.Mutex
	grant  map[string]bool
	events map[string]*nodeEvents
	// onCordon runs before a node is cordoned; an error fails the test.
	onCordon map[string]func(*corev1.Node) error
	errs     []error
}

// nodeEvents are what the stand-ins saw happen to one node.
type nodeEvents struct {
	GrantedAt  time.Time
	Cordons    []time.Time
	Uncordons  []time.Time
	GrantedFor string
}

func startDrainer(t *testing.T, cp *framework.ControlPlane) *drainer {
	d := &drainer{cp: cp, grant: map[string]bool{}, events: map[string]*nodeEvents{}, onCordon: map[string]func(*corev1.Node) error{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			d.pass(ctx)
			select {
			case <-ctx.Done():
			case <-time.After(25 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, err := range d.errs {
			t.Error(err)
		}
	})
	return d
}

// autoGrant makes the stand-in controller grant stageConfig once staged.
func (d *drainer) autoGrant(node string, on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.grant[node] = on
}

func (d *drainer) setOnCordon(node string, f func(*corev1.Node) error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.onCordon[node] = f
}

func (d *drainer) eventsOf(node string) nodeEvents {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e := d.events[node]; e != nil {
		return *e
	}
	return nodeEvents{}
}

func (d *drainer) pass(ctx context.Context) {
	nodes, err := d.cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		a := n.Annotations
		d.mu.Lock()
		ev := d.events[n.Name]
		if ev == nil {
			ev = &nodeEvents{}
			d.events[n.Name] = ev
		}
		grant, onCordon := d.grant[n.Name], d.onCordon[n.Name]
		d.mu.Unlock()

		changed := false
		now := time.Now()
		if stage := a[constants.StageConfigAnnotation]; grant && stage != "" &&
			a[constants.StagedConfigAnnotation] == stage && a[constants.DesiredConfigAnnotation] != stage {
			a[constants.DesiredConfigAnnotation] = stage
			changed = true
			d.mu.Lock()
			ev.GrantedAt, ev.GrantedFor = now, stage
			d.mu.Unlock()
		}
		want := a[constants.DesiredDrainAnnotation]
		if want != "" && want != a[constants.LastAppliedDrainAnnotation] {
			switch {
			case strings.HasPrefix(want, constants.DrainerStateDrain+"-"):
				if onCordon != nil {
					if err := onCordon(n); err != nil {
						d.mu.Lock()
						d.errs = append(d.errs, err)
						d.mu.Unlock()
					}
				}
				n.Spec.Unschedulable = true
				d.mu.Lock()
				ev.Cordons = append(ev.Cordons, now)
				d.mu.Unlock()
			case strings.HasPrefix(want, constants.DrainerStateUncordon+"-"):
				n.Spec.Unschedulable = false
				d.mu.Lock()
				ev.Uncordons = append(ev.Uncordons, now)
				d.mu.Unlock()
			}
			a[constants.LastAppliedDrainAnnotation] = want
			changed = true
		}
		if changed {
			// A conflict just means the daemon wrote in between: next pass.
			_, _ = d.cp.Kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		}
	}
}
