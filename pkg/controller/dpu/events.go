package dpu

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
)

// eventSink is an event recorder that knows HostMaintenance objects, with
// the broadcaster behind it when the caller gave none.
type eventSink struct {
	kube        kubernetes.Interface
	recorder    record.EventRecorder
	broadcaster record.EventBroadcaster
}

func newEventSink(kube kubernetes.Interface, given record.EventRecorder, component string) (*eventSink, error) {
	if given != nil {
		return &eventSink{recorder: given}, nil
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := dpuv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	b := record.NewBroadcaster()
	return &eventSink{kube: kube, broadcaster: b,
		recorder: b.NewRecorder(scheme, corev1.EventSource{Component: component})}, nil
}

// start sends events to the apiserver until the returned stop is called.
func (s *eventSink) start() (stop func()) {
	if s.broadcaster == nil {
		return func() {}
	}
	s.broadcaster.StartStructuredLogging(4)
	s.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: s.kube.CoreV1().Events("")})
	return s.broadcaster.Shutdown
}
