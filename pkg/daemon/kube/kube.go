// Package kube is the daemon's adapter to the apiserver: the node's
// annotations, the rendered MachineConfigs and the MachineConfigNode status.
package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	opv1 "github.com/openshift/api/operator/v1"
	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	operatorclientset "github.com/openshift/client-go/operator/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon/mcnstatus"
)

// Client talks to the apiserver for one node.
type Client struct {
	Kube kubernetes.Interface
	// NodeWriter writes the node (its annotations) with the kubelet's
	// credentials, as the MCO's daemon does (pkg/daemon/writer.go,
	// release-4.21: /var/lib/kubelet/kubeconfig): the payload's
	// machine-config-daemon ClusterRole only reads nodes. nil: Kube.
	NodeWriter kubernetes.Interface
	MCO        mcfgclientset.Interface
	// Operator reads MachineConfiguration cluster (node disruption policies);
	// nil: the MCO's built-in defaults apply.
	Operator operatorclientset.Interface
	NodeName string

	// configs, once WatchConfigs ran, serves MachineConfig from watches.
	configs *namedWatches
	// own, once WatchNode runs, serves Node from the node's watch.
	own ownNode
}

// maxConfigWatches: a node names at most five configs at once (current,
// desired, stage, and its update record's from and to), most often two.
const maxConfigWatches = 5

// WatchConfigs makes MachineConfig read the configs the node names from a
// watch of each (until ctx ends) instead of a GET at every step. Call it
// before the daemon runs.
func (c *Client) WatchConfigs(ctx context.Context) {
	api := c.MCO.MachineconfigurationV1().MachineConfigs()
	c.configs = newNamedWatches(ctx, &mcfgv1.MachineConfig{}, maxConfigWatches, func(name string) cache.ListerWatcher {
		return oneNamed(name, api.List, api.Watch)
	})
}

// Node returns the node as of the daemon's own last write or later: from
// the node's watch (WatchNode) once it has shown that write (waiting
// echoWait for it), otherwise from the apiserver (see ownNode).
func (c *Client) Node(ctx context.Context) (*corev1.Node, error) {
	if n, ok := c.own.await(ctx, c.NodeName, echoWait); ok {
		return n, nil
	}
	n, err := c.Kube.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("getting node %s: %w", c.NodeName, err)
	}
	c.own.known(n)
	return n, nil
}

// SetAnnotations sets and removes node annotations in one merge patch.
func (c *Client) SetAnnotations(ctx context.Context, set map[string]string, remove []string) error {
	ann := map[string]any{}
	for k, v := range set {
		ann[k] = v
	}
	for _, k := range remove {
		ann[k] = nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
	if err != nil {
		return err
	}
	w := c.NodeWriter
	if w == nil {
		w = c.Kube
	}
	written, err := w.CoreV1().Nodes().Patch(ctx, c.NodeName, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		c.own.known(nil)
		return fmt.Errorf("patching annotations of node %s: %w", c.NodeName, err)
	}
	c.own.known(written)
	return nil
}

// MachineConfig returns the named MachineConfig, or nil when it does not exist.
// It is shared with the watch that keeps it, when WatchConfigs ran: read
// only.
func (c *Client) MachineConfig(ctx context.Context, name string) (*mcfgv1.MachineConfig, error) {
	if c.configs != nil {
		if obj, ok := c.configs.get(ctx, name); ok {
			return obj.(*mcfgv1.MachineConfig), nil
		}
	}
	mc, err := c.MCO.MachineconfigurationV1().MachineConfigs().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting MachineConfig %s: %w", name, err)
	}
	return mc, nil
}

// MachineConfigurationName is the MachineConfiguration the MCO's operator
// keeps (ctrlcommon.MCOOperatorKnobsObjectName).
const MachineConfigurationName = "cluster"

// MachineConfiguration returns MachineConfiguration "cluster", nil when it
// (or its CRD, on a cluster without the MCO's operator) does not exist.
func (c *Client) MachineConfiguration(ctx context.Context) (*opv1.MachineConfiguration, error) {
	if c.Operator == nil {
		return nil, nil
	}
	mc, err := c.Operator.OperatorV1().MachineConfigurations().Get(ctx, MachineConfigurationName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting MachineConfiguration %s: %w", MachineConfigurationName, err)
	}
	return mc, nil
}

// ReportConditions writes the node's MachineConfigNode status (creating the
// MachineConfigNode when missing): conds, oldest first, and what the MCO's
// readers derive from the node (mcnstatus.Next), from node as read for this
// write. A write that would change nothing is not made. nil conds brings the
// status up to date with the node (the daemon does so when it starts).
func (c *Client) ReportConditions(ctx context.Context, node *corev1.Node, conds []metav1.Condition) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mcn, err := c.getOrCreateMCN(ctx, node)
		if err != nil {
			return err
		}
		next := mcnstatus.Next(mcn.Status, mcn.Generation, mcnstatus.NodeOf(node), conds, metav1.Now())
		if !equality.Semantic.DeepEqual(mcn.Status, next) {
			mcn.Status = next
			if mcn, err = c.MCO.MachineconfigurationV1().MachineConfigNodes().UpdateStatus(ctx, mcn, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		// The spec after the status: a version with the new spec and the old
		// status would show the MCO's readers a moment that never was.
		return c.followDesired(ctx, mcn, node)
	})
}

// getOrCreateMCN returns the node's MachineConfigNode, created (as the MCO's
// operator creates it, syncMachineConfigNodes) when there is none.
func (c *Client) getOrCreateMCN(ctx context.Context, node *corev1.Node) (*mcfgv1.MachineConfigNode, error) {
	api := c.MCO.MachineconfigurationV1().MachineConfigNodes()
	mcn, err := api.Get(ctx, c.NodeName, metav1.GetOptions{})
	if err == nil {
		return mcn, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("getting MachineConfigNode %s: %w", c.NodeName, err)
	}
	mcn = &mcfgv1.MachineConfigNode{
		ObjectMeta: metav1.ObjectMeta{
			Name: c.NodeName,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID,
			}},
		},
		Spec: mcfgv1.MachineConfigNodeSpec{
			Node:          mcfgv1.MCOObjectReference{Name: c.NodeName},
			Pool:          mcfgv1.MCOObjectReference{Name: PoolName(node)},
			ConfigVersion: mcfgv1.MachineConfigNodeSpecMachineConfigVersion{Desired: mcnstatus.NodeOf(node).DesiredOrNotYetSet()},
		},
	}
	created, err := api.Create(ctx, mcn, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return api.Get(ctx, c.NodeName, metav1.GetOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("creating MachineConfigNode %s: %w", c.NodeName, err)
	}
	return created, nil
}

// followDesired keeps spec.configVersion.desired on the node's
// desiredConfig, as the MCO's node controller keeps it when it sets one
// (UpdateMachineConfigNodeSpecDesiredAnnotations).
func (c *Client) followDesired(ctx context.Context, mcn *mcfgv1.MachineConfigNode, node *corev1.Node) error {
	desired := mcnstatus.NodeOf(node).DesiredOrNotYetSet()
	if mcn.Spec.ConfigVersion.Desired == desired {
		return nil
	}
	mcn.Spec.ConfigVersion.Desired = desired
	if _, err := c.MCO.MachineconfigurationV1().MachineConfigNodes().Update(ctx, mcn, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating MachineConfigNode %s spec: %w", c.NodeName, err)
	}
	return nil
}

// PoolName guesses the node's pool from its role labels, as the MCO's
// primary pool: master (or control-plane) first, then any other role,
// then worker.
func PoolName(node *corev1.Node) string {
	var other string
	for k := range node.Labels {
		role, ok := strings.CutPrefix(k, constants.NodeRoleLabelPrefix)
		if !ok {
			continue
		}
		if role == constants.MasterPool || role == "control-plane" {
			return constants.MasterPool
		}
		if role != constants.WorkerPool && (other == "" || role < other) {
			other = role
		}
	}
	if other != "" {
		return other
	}
	return constants.WorkerPool
}

// decisionInputChanged tells whether an update of the node changed what the
// daemon decides on: its metadata (annotations, labels) or spec (cordon). A
// kubelet's status heartbeat does not; at a thousand nodes waking for each
// was most of the daemons' node reads (make bench-scale).
func decisionInputChanged(o, n any) bool {
	on, ok1 := o.(*corev1.Node)
	nn, ok2 := n.(*corev1.Node)
	if !ok1 || !ok2 {
		return true
	}
	return !maps.Equal(on.Annotations, nn.Annotations) || !maps.Equal(on.Labels, nn.Labels) ||
		!equality.Semantic.DeepEqual(on.Spec, nn.Spec)
}

// WatchNode signals wake whenever the node's metadata or spec changes (not
// its status), until ctx ends.
// The daemon re-reads the node with Node() after each signal.
func (c *Client) WatchNode(ctx context.Context, wake chan<- struct{}) {
	nodes := c.Kube.CoreV1().Nodes()
	lw := oneNamed(c.NodeName, nodes.List, nodes.Watch)
	notify := func(any) {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	// The store is updated before a handler runs: a wake-up's node is in
	// it when Node reads.
	store, inf := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &corev1.Node{},
		ResyncPeriod:  10 * time.Minute,
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc: func(n any) {
				c.own.delivered(n)
				notify(n)
			},
			UpdateFunc: func(o, n any) {
				c.own.delivered(n)
				if decisionInputChanged(o, n) {
					notify(n)
				}
			},
			DeleteFunc: notify,
		},
	})
	c.own.watching(store)
	defer c.own.watching(nil)
	klog.FromContext(ctx).V(2).Info("watching node", "node", c.NodeName)
	inf.RunWithContext(ctx)
}

// oneNamed lists and watches the one object called name, with the list and
// watch calls of its kind's client.
func oneNamed[L runtime.Object](name string, list func(context.Context, metav1.ListOptions) (L, error),
	watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error)) *cache.ListWatch {
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return list(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return watchFn(ctx, o)
		},
	}
}
