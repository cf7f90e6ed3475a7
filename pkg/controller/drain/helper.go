package drain

import (
	"context"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	kubedrain "k8s.io/kubectl/pkg/drain"
)

// NewDrainHelper returns kubectl's drain helper with the MCO's settings:
// unmanaged pods and emptyDir data do not block an OS update; DaemonSet pods
// stay; each pod's own grace period applies. The drain gives up after
// timeout or when ctx ends. kubectl's progress output goes to ctx's logger
// (at V(2); its error output at V(0)), labelled with node. Callers add their
// own OnPodDeletionOrEvictionFinished.
func NewDrainHelper(ctx context.Context, kube kubernetes.Interface, node string, timeout time.Duration) *kubedrain.Helper {
	logger := klog.FromContext(ctx).WithValues("node", node)
	return &kubedrain.Helper{
		Ctx:                 ctx,
		Client:              kube,
		Force:               true,
		IgnoreAllDaemonSets: true,
		DeleteEmptyDirData:  true,
		GracePeriodSeconds:  -1,
		Timeout:             timeout,
		Out:                 logWriter{logger: logger, verbosity: 2},
		ErrOut:              logWriter{logger: logger},
	}
}

// logWriter passes kubectl drain's progress output to klog, line by line.
type logWriter struct {
	logger    klog.Logger
	verbosity int
}

func (w logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			w.logger.V(w.verbosity).Info("kubectl drain: " + line)
		}
	}
	return len(p), nil
}
