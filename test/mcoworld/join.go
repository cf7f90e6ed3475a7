package mcoworld

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/test/framework"
)

// joinBound bounds a new worker's join: the operator publishing its
// pool's pointer config, and a machine-config-server serving the pool's
// config (the server up, the pool rendered).
const joinBound = 15 * time.Minute

// ignitionPort is where the pointer config sends a new machine: the
// machine-config-server's secure port on the API's internal host
// (getIgnitionHost in the MCO's pkg/operator/sync.go, release-4.21).
const ignitionPort = "22623"

// joinWorkers joins each worker in the background, as machines boot: the
// first boot fetches its Ignition from the machine-config-server through
// the pointer config, lays it, and only then does the node register
// (its Node, and so its daemon pod). A failed join is reported by Err.
func (w *World) joinWorkers(ctx context.Context) {
	for _, n := range w.opts.Workers {
		go func() {
			if err := w.join(ctx, n); err != nil && ctx.Err() == nil {
				w.fail(fmt.Errorf("worker %s joining through the machine-config-server: %w", n, err))
			}
		}()
	}
}

func (w *World) join(ctx context.Context, node string) error {
	ctx, cancel := context.WithTimeout(ctx, joinBound)
	defer cancel()
	var pointer []byte
	err := framework.Await(ctx, "the worker pool's pointer config (openshift-machine-api/worker-user-data-managed)", joinBound, 2*time.Second, func(ctx context.Context) (bool, string, error) {
		s, err := w.CP.Kube.CoreV1().Secrets("openshift-machine-api").Get(ctx, "worker-user-data-managed", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		pointer = s.Data["userData"]
		return len(pointer) > 0, "no userData", nil
	})
	if err != nil {
		return err
	}
	served, err := w.firstBoot(ctx, pointer, w.dialMCS, filepath.Join(w.opts.Dir, "nodes", node, "root"))
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.joined[node] = served
	w.mu.Unlock()
	n := framework.KwokNode(node, map[string]string{"kubernetes.io/os": "linux", "node-role.kubernetes.io/worker": ""})
	if _, err := w.CP.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("registering the node: %w", err)
	}
	klog.InfoS("a worker joined through the machine-config-server", "node", node, "bytes", len(served))
	return nil
}

// firstBoot is a new machine's first boot up to its registration: its
// Ignition fetched through pointer, then laid on the boot image's files in
// root. A fetch that fails lays nothing.
func (w *World) firstBoot(ctx context.Context, pointer []byte, dial DialFunc, root string) ([]byte, error) {
	served, err := FetchPointed(ctx, pointer, dial)
	if err != nil {
		return nil, err
	}
	for p, c := range w.bootImageFiles() {
		if err := writeNodeFile(root, p, []byte(c)); err != nil {
			return nil, err
		}
	}
	if err := layOSUnits(root, served); err != nil {
		return nil, err
	}
	if err := LayIgnition(root, served); err != nil {
		return nil, err
	}
	return served, nil
}

// dialMCS is the load balancer in front of api-int:22623: it connects to
// a running machine-config-server, the first that answers from a random
// start, as an L4 balancer with health checks would.
func (w *World) dialMCS(ctx context.Context, network, addr string) (net.Conn, error) {
	if _, port, err := net.SplitHostPort(addr); err != nil || port != ignitionPort {
		return nil, fmt.Errorf("dial %s: the world routes only the machine-config-server's port %s", addr, ignitionPort)
	}
	backends := w.mcsBackends()
	if len(backends) == 0 {
		return nil, fmt.Errorf("dial %s: no machine-config-server runs", addr)
	}
	start := rand.IntN(len(backends))
	var errs []error
	for i := range backends {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, backends[(start+i)%len(backends)])
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// fail records a failure of the world's own work (Err reports it).
func (w *World) fail(err error) {
	klog.ErrorS(err, "the world's own work failed")
	w.errMu.Lock()
	defer w.errMu.Unlock()
	w.errs = append(w.errs, err)
}

// Err is what failed in the world's own work (a worker's join, a node's
// kubelet status at a reboot); nil if nothing did.
func (w *World) Err() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return errors.Join(w.errs...)
}

// Joined names the workers laid from the machine-config-server's Ignition
// and what each was served.
func (w *World) Joined() map[string][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string][]byte{}
	for n, c := range w.joined {
		out[n] = c
	}
	return out
}
