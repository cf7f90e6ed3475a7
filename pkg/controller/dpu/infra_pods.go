package dpu

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// daemonSetPods watches the pods of the DaemonSets a DPU must run (its
// network agents) and tells, per infra node, which of them have no Ready
// pod on it and since when, as far as the pods tell. It keeps no clock of
// its own: a DaemonSet without any pod on the node has no time, and the
// controller records one on the node (DPUDownSinceAnnotation).
type daemonSetPods struct {
	sets      []types.NamespacedName
	factories []informers.SharedInformerFactory
	byNS      map[string]cache.SharedIndexInformer
	synced    []cache.InformerSynced
}

const podsByNode = "spec.nodeName"

func newDaemonSetPods(kube kubernetes.Interface, sets []types.NamespacedName, enqueue func(node string)) (*daemonSetPods, error) {
	p := &daemonSetPods{sets: sets, byNS: map[string]cache.SharedIndexInformer{}}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { enqueuePodNode(obj, enqueue) },
		UpdateFunc: func(_, obj any) { enqueuePodNode(obj, enqueue) },
		DeleteFunc: func(obj any) { enqueuePodNode(obj, enqueue) },
	}
	for _, ds := range sets {
		if _, ok := p.byNS[ds.Namespace]; ok {
			continue
		}
		f := informers.NewSharedInformerFactoryWithOptions(kube, 10*time.Minute, informers.WithNamespace(ds.Namespace))
		inf := f.Core().V1().Pods().Informer()
		if err := inf.AddIndexers(cache.Indexers{podsByNode: func(obj any) ([]string, error) {
			if pod, ok := obj.(*corev1.Pod); ok {
				return []string{pod.Spec.NodeName}, nil
			}
			return nil, nil
		}}); err != nil {
			return nil, err
		}
		if _, err := inf.AddEventHandler(handler); err != nil {
			return nil, err
		}
		p.factories = append(p.factories, f)
		p.byNS[ds.Namespace] = inf
		p.synced = append(p.synced, inf.HasSynced)
	}
	return p, nil
}

func enqueuePodNode(obj any, enqueue func(string)) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if pod, ok := obj.(*corev1.Pod); ok && pod.Spec.NodeName != "" {
		enqueue(pod.Spec.NodeName)
	}
}

func (p *daemonSetPods) run(ctx context.Context) {
	for _, f := range p.factories {
		f.Start(ctx.Done())
	}
}

// state returns the required DaemonSets whose pods on node are not Ready,
// with since when (the pod's Ready transition, or its creation); those
// without any pod on node (absent); and when the last of their pods became
// Ready.
func (p *daemonSetPods) state(node string) (notReady map[string]time.Time, absent []string, upSince time.Time) {
	for _, ds := range p.sets {
		var pods []*corev1.Pod
		if objs, err := p.byNS[ds.Namespace].GetIndexer().ByIndex(podsByNode, node); err == nil {
			for _, o := range objs {
				if pod := o.(*corev1.Pod); pod.DeletionTimestamp == nil && ownedByDaemonSet(pod, ds.Name) {
					pods = append(pods, pod)
				}
			}
		}
		if len(pods) == 0 {
			absent = append(absent, ds.String())
			continue
		}
		ready, since := false, time.Time{}
		for _, pod := range pods {
			c := podReadyCondition(pod)
			switch {
			case c != nil && c.Status == corev1.ConditionTrue:
				ready = true
				if c.LastTransitionTime.Time.After(upSince) {
					upSince = c.LastTransitionTime.Time
				}
			case c != nil && (since.IsZero() || c.LastTransitionTime.Time.Before(since)):
				since = c.LastTransitionTime.Time
			case c == nil && (since.IsZero() || pod.CreationTimestamp.Time.Before(since)):
				since = pod.CreationTimestamp.Time
			}
		}
		if ready {
			continue
		}
		if notReady == nil {
			notReady = map[string]time.Time{}
		}
		notReady[ds.String()] = since
	}
	return notReady, absent, upSince
}

func ownedByDaemonSet(pod *corev1.Pod, name string) bool {
	for _, o := range pod.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Name == name {
			return true
		}
	}
	return false
}

func podReadyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}
