// Package events holds the event recorder set-up that tandem's controllers
// share: use the caller's recorder, or make a broadcaster that Start sends
// to the apiserver while the controller runs.
package events

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// NewRecorder returns given when the caller gave a recorder (and no
// broadcaster); otherwise a new broadcaster and its recorder for component,
// which knows the kinds in scheme.
func NewRecorder(given record.EventRecorder, scheme *runtime.Scheme, component string) (record.EventRecorder, record.EventBroadcaster) {
	if given != nil {
		return given, nil
	}
	b := record.NewBroadcaster()
	return b.NewRecorder(scheme, corev1.EventSource{Component: component}), b
}

// Start sends b's events to the apiserver through kube (and logs them at
// V(4)) until the returned stop is called. A nil b (the caller's recorder
// is in use) has nothing to start.
func Start(kube kubernetes.Interface, b record.EventBroadcaster) (stop func()) {
	if b == nil {
		return func() {}
	}
	b.StartStructuredLogging(4)
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	return b.Shutdown
}
