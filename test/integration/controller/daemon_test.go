//go:build integration

package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/etcd"
	"github.com/tandem-mco/tandem/test/framework"
)

// grantSeen is one disruption grant as a master's daemon saw it, with the
// etcd leader at that moment.
type grantSeen struct {
	Node   string
	Config string
	Leader string
	At     time.Time
}

// timeline collects what the test's daemons and wrappers saw, in order.
type timeline struct {
	mu     sync.Mutex
	grants []grantSeen
	moves  []moveSeen
}

type moveSeen struct {
	From, To string
	At       time.Time
	Err      error
}

func (tl *timeline) addGrant(g grantSeen) {
	tl.mu.Lock()
	tl.grants = append(tl.grants, g)
	tl.mu.Unlock()
}
func (tl *timeline) addMove(m moveSeen) { tl.mu.Lock(); tl.moves = append(tl.moves, m); tl.mu.Unlock() }

func (tl *timeline) snapshot() ([]grantSeen, []moveSeen) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]grantSeen(nil), tl.grants...), append([]moveSeen(nil), tl.moves...)
}

// masterDaemon is a small stand-in for a master's machine-config-daemon: it
// answers stageConfig with stagedConfig, and a desiredConfig grant with
// state=Working, a cordon, a real reboot of the master's etcd member (stop,
// wait, start), then currentConfig and state=Done.
type masterDaemon struct {
	kube    kubernetes.Interface
	cluster *framework.EtcdCluster
	member  int
	facts   *etcd.Client
	tl      *timeline
	reboot  time.Duration
	// power serializes this master's reboots with the test's own stops and
	// starts of its etcd member.
	power *sync.Mutex
}

func (d *masterDaemon) name() string { return d.cluster.MemberName(d.member) }

func (d *masterDaemon) run(ctx context.Context, t *testing.T) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := d.step(ctx); err != nil && ctx.Err() == nil {
			t.Logf("daemon %s: %v (retrying)", d.name(), err)
		}
	}
}

func (d *masterDaemon) step(ctx context.Context) error {
	n, err := d.kube.CoreV1().Nodes().Get(ctx, d.name(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	a := n.Annotations
	cur, des := a[constants.CurrentConfigAnnotation], a[constants.DesiredConfigAnnotation]
	if des != "" && des != cur {
		st := d.facts.Snapshot(ctx)
		d.tl.addGrant(grantSeen{Node: d.name(), Config: des, Leader: st.Leader(), At: time.Now()})
		if err := d.patch(ctx, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
			constants.StateAnnotation: constants.MachineConfigDaemonStateWorking}}, "spec": map[string]any{"unschedulable": true}}); err != nil {
			return err
		}
		if err := d.rebootMember(ctx); err != nil {
			return err
		}
		return retryPatch(ctx, func() error {
			return d.patch(ctx, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
				constants.CurrentConfigAnnotation: des, constants.StateAnnotation: constants.MachineConfigDaemonStateDone}},
				"spec": map[string]any{"unschedulable": nil}})
		})
	}
	if stage := a[constants.StageConfigAnnotation]; stage != "" && stage != a[constants.StagedConfigAnnotation] && stage != cur {
		return d.patch(ctx, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
			constants.StagedConfigAnnotation: stage}}})
	}
	return nil
}

func (d *masterDaemon) rebootMember(ctx context.Context) error {
	d.power.Lock()
	defer d.power.Unlock()
	if err := d.cluster.StopMember(d.member); err != nil {
		return fmt.Errorf("reboot: stopping etcd: %w", err)
	}
	time.Sleep(d.reboot)
	if err := d.cluster.StartMember(ctx, d.member); err != nil {
		return fmt.Errorf("reboot: starting etcd: %w", err)
	}
	return nil
}

func (d *masterDaemon) patch(ctx context.Context, p map[string]any) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = d.kube.CoreV1().Nodes().Patch(ctx, d.name(), types.MergePatchType, b, metav1.PatchOptions{})
	return err
}

// retryPatch retries an apiserver write that may fail while etcd settles
// after a member's restart.
func retryPatch(ctx context.Context, f func() error) error {
	return framework.Await(ctx, "a node write after an etcd member's restart", 2*time.Minute, 200*time.Millisecond,
		func(context.Context) (bool, string, error) {
			if err := f(); err != nil {
				return false, err.Error(), nil
			}
			return true, "", nil
		})
}

func masterNode(name, cfg string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:   name,
		Labels: map[string]string{constants.NodeRoleLabelPrefix + constants.MasterPool: ""},
		Annotations: map[string]string{
			constants.CurrentConfigAnnotation: cfg, constants.DesiredConfigAnnotation: cfg,
			constants.StateAnnotation: constants.MachineConfigDaemonStateDone,
		},
	}}
}
