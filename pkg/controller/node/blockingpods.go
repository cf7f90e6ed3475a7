package node

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// PodsByNodeIndex indexes pods by spec.nodeName.
const PodsByNodeIndex = "tandem.nodeName"

// BlockingPodGate holds a node's disruption while a pod on it matches one of
// the selectors: kured's --blocking-pod-selector (kubereboot/kured 1.23.0,
// pkg/blockers/kubernetespod.go: pods on the node, any namespace, phase not
// Succeeded, Failed or Unknown, any selector matching blocks).
type BlockingPodGate struct {
	Selectors []labels.Selector
	pods      cache.Indexer
}

// NewBlockingPodGate parses the selectors (label selector syntax) and reads
// pods from the informer, indexed by node.
func NewBlockingPodGate(selectors []string, pods coreinformers.PodInformer) (*BlockingPodGate, error) {
	g := &BlockingPodGate{}
	for _, s := range selectors {
		sel, err := labels.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("blocking pod selector %q: %w", s, err)
		}
		if sel.Empty() {
			return nil, fmt.Errorf("blocking pod selector %q selects every pod", s)
		}
		g.Selectors = append(g.Selectors, sel)
	}
	inf := pods.Informer()
	if err := inf.AddIndexers(cache.Indexers{PodsByNodeIndex: func(obj any) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			return []string{p.Spec.NodeName}, nil
		}
		return nil, nil
	}}); err != nil {
		return nil, fmt.Errorf("indexing pods by node: %w", err)
	}
	g.pods = inf.GetIndexer()
	return g, nil
}

func (g *BlockingPodGate) Name() string           { return "BlockingPods" }
func (g *BlockingPodGate) HoldReason() HoldReason { return HoldBlockingPods }

func (g *BlockingPodGate) MayDisrupt(_ PoolView, n NodeView) (bool, string) {
	objs, err := g.pods.ByIndex(PodsByNodeIndex, n.Name)
	if err != nil {
		return false, fmt.Sprintf("listing the node's pods: %v", err) // kured blocks on a query error too
	}
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	if names := BlockingPods(g.Selectors, pods); len(names) > 0 {
		return false, fmt.Sprintf("pods matching the blocking pod selectors run on the node: %s", nodeList(names))
	}
	return true, ""
}

// BlockingPods returns namespace/name of the pods that block: not finished
// (phase other than Succeeded, Failed, Unknown) and matching a selector.
func BlockingPods(selectors []labels.Selector, pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		switch p.Status.Phase {
		case corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown:
			continue
		}
		for _, s := range selectors {
			if s.Matches(labels.Set(p.Labels)) {
				out = append(out, p.Namespace+"/"+p.Name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
