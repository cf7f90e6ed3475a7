package dpu

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// daemonSetPods watches the pods of the DaemonSets a DPU must run (its
// network agents) and tells, per infra node, which of them have no Ready
// pod on it and since when.
type daemonSetPods struct {
	sets      []types.NamespacedName
	factories []informers.SharedInformerFactory
	byNS      map[string]cache.SharedIndexInformer
	synced    []cache.InformerSynced
	now       func() time.Time

	mu sync.Mutex
	// absentSince remembers when a DaemonSet was first seen without any pod
	// on a node (a pod that exists has its own timestamps).
	absentSince map[string]time.Time // "<node> <namespace>/<name>"
}

const podsByNode = "spec.nodeName"

func newDaemonSetPods(kube kubernetes.Interface, sets []types.NamespacedName, now func() time.Time, enqueue func(node string)) (*daemonSetPods, error) {
	p := &daemonSetPods{sets: sets, byNS: map[string]cache.SharedIndexInformer{}, now: now, absentSince: map[string]time.Time{}}
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

// state returns the required DaemonSets without a Ready pod on node, with
// since when (the pod's Ready transition, its creation, or when no pod was
// first seen), and when the last of their pods became Ready.
func (p *daemonSetPods) state(node string) (missing map[string]time.Time, upSince time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ds := range p.sets {
		key := node + " " + ds.String()
		var pods []*corev1.Pod
		if objs, err := p.byNS[ds.Namespace].GetIndexer().ByIndex(podsByNode, node); err == nil {
			for _, o := range objs {
				if pod := o.(*corev1.Pod); pod.DeletionTimestamp == nil && ownedByDaemonSet(pod, ds.Name) {
					pods = append(pods, pod)
				}
			}
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
			delete(p.absentSince, key)
			continue
		}
		if len(pods) == 0 {
			if _, ok := p.absentSince[key]; !ok {
				p.absentSince[key] = p.now()
			}
			since = p.absentSince[key]
		} else {
			delete(p.absentSince, key)
		}
		if missing == nil {
			missing = map[string]time.Time{}
		}
		missing[ds.String()] = since
	}
	return missing, upSince
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
