package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// KwokNodeAnnotation marks the nodes kwok simulates a kubelet for.
const KwokNodeAnnotation = "kwok.x-k8s.io/node"

// Kwok is a kwok process: it plays the kubelet of every node carrying
// KwokNodeAnnotation=fake (heartbeats, Ready, pods Running, pod deletion).
type Kwok struct {
	proc *process
}

// StartKwok starts kwok against cp.
func StartKwok(ctx context.Context, cp *ControlPlane) (*Kwok, error) {
	bin, err := toolPath("kwok")
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	home := filepath.Join(cp.Dir, "kwok-home") // keeps a user's ~/.kwok config out
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, fmt.Errorf("kwok home: %w", err)
	}
	p := newProcess(cp.Name+" kwok", bin, filepath.Join(cp.Dir, "kwok.log"),
		"--kubeconfig="+cp.KubeconfigPath,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector="+KwokNodeAnnotation+"=fake",
		"--node-lease-duration-seconds=40",
		"--cidr=10.0.0.1/16",
		"--node-ip=10.0.0.1",
		fmt.Sprintf("--server-address=127.0.0.1:%d", ports[0]),
	)
	p.env = []string{"HOME=" + home}
	if err := p.start(); err != nil {
		return nil, err
	}
	k := &Kwok{proc: p}
	// kwok needs a moment to connect; a crash at start is reported with its log.
	err = poll(ctx, 100*time.Millisecond, func() (bool, error) {
		if dead, werr := p.exited(); dead {
			return false, fmt.Errorf("kwok exited: %v; log %s:\n%s", werr, p.logPath, p.logTail())
		}
		b, _ := os.ReadFile(p.logPath)
		return len(b) > 0, nil
	})
	if err != nil {
		_ = k.Stop()
		return nil, err
	}
	return k, nil
}

// NewKwok starts kwok for a test and stops it at cleanup.
func NewKwok(t testing.TB, cp *ControlPlane) *Kwok {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	k, err := StartKwok(ctx, cp)
	if err != nil {
		t.Fatalf("starting kwok: %v", err)
	}
	t.Cleanup(func() { _ = k.Stop() })
	return k
}

// Stop stops kwok.
func (k *Kwok) Stop() error { return k.proc.stop(5 * time.Second) }

// KwokNode returns a Node that kwok manages: no taints, generous capacity.
func KwokNode(name string, labels map[string]string) *corev1.Node {
	l := map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "type": "kwok"}
	for k, v := range labels {
		l[k] = v
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      l,
			Annotations: map[string]string{KwokNodeAnnotation: "fake"},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// WaitForNodesReady waits until every named node reports Ready=True.
func WaitForNodesReady(ctx context.Context, cs kubernetes.Interface, names ...string) error {
	return poll(ctx, 250*time.Millisecond, func() (bool, error) {
		for _, n := range names {
			node, err := cs.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
			if err != nil || !NodeReady(node) {
				return false, nil
			}
		}
		return true, nil
	})
}

// NodeReady reports whether node's Ready condition is True.
func NodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// SetNodeNotReady takes a node from kwok (it stops playing its kubelet) and
// reports it NotReady, as the node controller sees a kubelet that lost its
// network. RestoreNode gives it back.
func SetNodeNotReady(ctx context.Context, cs kubernetes.Interface, name string) error {
	return setNodeNotReady(ctx, cs, name, "simulated: the kubelet lost its network")
}

// KubeletShuttingDownMessage is the Ready condition's message a kubelet
// writes when its node begins a graceful shutdown (reason KubeletNotReady):
// the node shutdown manager's error, aggregated into the condition
// (kubernetes v1.34.4, pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go
// ShutdownStatus; pkg/kubelet/nodestatus/setters.go ReadyCondition).
const KubeletShuttingDownMessage = "node is shutting down"

// NodeShuttingDown reports a node NotReady as its kubelet does at the start
// of a reboot, and takes it from kwok until RestoreNode: a reboot is seen by
// everything that watches Ready, as on a real cluster.
func NodeShuttingDown(ctx context.Context, cs kubernetes.Interface, name string) error {
	return setNodeNotReady(ctx, cs, name, KubeletShuttingDownMessage)
}

func setNodeNotReady(ctx context.Context, cs kubernetes.Interface, name, message string) error {
	patch := []byte(`{"metadata":{"annotations":{"` + KwokNodeAnnotation + `":null}}}`)
	if _, err := cs.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("taking node %s from kwok: %w", name, err)
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		found := false
		for i := range n.Status.Conditions {
			if c := &n.Status.Conditions[i]; c.Type == corev1.NodeReady {
				c.Status, c.Reason, c.Message = corev1.ConditionFalse, "KubeletNotReady", message
				c.LastHeartbeatTime, c.LastTransitionTime = now, now
				found = true
			}
		}
		if !found {
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady,
				Status: corev1.ConditionFalse, Reason: "KubeletNotReady", Message: message, LastHeartbeatTime: now, LastTransitionTime: now})
		}
		_, err = cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

// RestoreNode hands a node back to kwok and waits (at most bound) until it
// reports Ready again.
func RestoreNode(ctx context.Context, cs kubernetes.Interface, name string, bound time.Duration) error {
	patch := []byte(`{"metadata":{"annotations":{"` + KwokNodeAnnotation + `":"fake"}}}`)
	if _, err := cs.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("giving node %s back to kwok: %w", name, err)
	}
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var last string
	err := poll(wctx, 250*time.Millisecond, func() (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(wctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = fmt.Sprintf("conditions %v", n.Status.Conditions)
		return NodeReady(n), nil
	})
	if err != nil {
		return fmt.Errorf("node %s not Ready %s after kwok took it back: %w; last seen: %s", name, bound, err, last)
	}
	return podsBackAfterBoot(wctx, cs, name)
}

// podsBackAfterBoot reports Ready again the pods of a node that the node
// controller marked not Ready while it was down, as its kubelet does once
// it has started their containers after the boot. kwok plays a pod's start
// once (a pod with an IP is left alone), so without this the pods a power
// loss caught would stay not Ready for good.
func podsBackAfterBoot(ctx context.Context, cs kubernetes.Interface, node string) error {
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return fmt.Errorf("pods of node %s after its boot: %w", node, err)
	}
	for _, listed := range pods.Items {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			p, err := cs.CoreV1().Pods(listed.Namespace).Get(ctx, listed.Name, metav1.GetOptions{})
			if err != nil || p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
				return err
			}
			changed, now := false, metav1.Now()
			for j := range p.Status.Conditions {
				c := &p.Status.Conditions[j]
				if (c.Type == corev1.PodReady || c.Type == corev1.ContainersReady) && c.Status != corev1.ConditionTrue {
					c.Status, c.Reason, c.Message, c.LastTransitionTime = corev1.ConditionTrue, "", "", now
					changed = true
				}
			}
			if changed {
				_, err = cs.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
			}
			return err
		})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("pod %s/%s Ready after node %s's boot: %w", listed.Namespace, listed.Name, node, err)
		}
	}
	return nil
}
