package dpu

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
	"github.com/tandem-mco/tandem/pkg/controller/events"
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
	recorder, b := events.NewRecorder(nil, scheme, component)
	return &eventSink{kube: kube, broadcaster: b, recorder: recorder}, nil
}

// start sends events to the apiserver until the returned stop is called.
func (s *eventSink) start() (stop func()) {
	return events.Start(s.kube, s.broadcaster)
}
