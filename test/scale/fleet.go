package scale

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// SimParams are the simulated machine's timings.
type SimParams struct {
	// StageTime is how long staging an OS takes.
	StageTime time.Duration
	// RebootTime is how long a node is down for a reboot.
	RebootTime time.Duration
	// Resync is the daemon's --resync (production default: a minute).
	Resync time.Duration
}

// nodesPerTransport is how many simulated daemons share one HTTP transport
// (a few TCP connections; Go opens more when HTTP/2 runs out of streams).
// A real fleet has one connection per daemon; sharing keeps the bench's own
// file descriptors and TLS handshakes down and changes nothing the
// apiserver counts per request.
const nodesPerTransport = 100

// fleet is the simulated daemons of one cluster.
type fleet struct {
	nodes []*simNode
	wg    sync.WaitGroup
}

// startFleet starts one simulated daemon per name, each with its own
// clientset (QPS 20, burst 40 and the user agent
// machine-config-daemon/<node>, as cmd/machine-config-daemon sets them)
// over the daemons' identity cfg.
func startFleet(ctx context.Context, cfg *rest.Config, dir string, names []string, image string, p SimParams) (*fleet, error) {
	f := &fleet{}
	var httpClient *http.Client
	for i, name := range names {
		c := rest.CopyConfig(cfg)
		c.QPS, c.Burst = 20, 40
		c.UserAgent = "machine-config-daemon/" + name
		if i%nodesPerTransport == 0 {
			var err error
			if httpClient, err = rest.HTTPClientFor(c); err != nil {
				return nil, fmt.Errorf("daemon transport: %w", err)
			}
		}
		kc, err := kubernetes.NewForConfigAndClient(c, httpClient)
		if err != nil {
			return nil, fmt.Errorf("daemon client of %s: %w", name, err)
		}
		mc, err := mcfgclientset.NewForConfigAndClient(c, httpClient)
		if err != nil {
			return nil, fmt.Errorf("daemon client of %s: %w", name, err)
		}
		n, err := newSimNode(name, filepath.Join(dir, name), image, kc, mc, p)
		if err != nil {
			return nil, err
		}
		f.nodes = append(f.nodes, n)
	}
	for _, n := range f.nodes {
		f.wg.Add(1)
		go func() { defer f.wg.Done(); n.run(ctx) }()
	}
	return f, nil
}

// wait returns when every daemon stopped (its context ended).
func (f *fleet) wait() { f.wg.Wait() }

// failures lists the daemons that could not run at all (a step failing is
// the daemon's business and shows on the node; this is the harness).
func (f *fleet) failures() error {
	var errs []error
	for _, n := range f.nodes {
		if err := n.failure(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// reboots sums the simulated reboots.
func (f *fleet) reboots() map[string]int {
	out := map[string]int{}
	for _, n := range f.nodes {
		out[n.name] = int(n.reboots.Load())
	}
	return out
}

// bootedImages maps node -> booted OS image.
func (f *fleet) bootedImages() map[string]string {
	out := map[string]string{}
	for _, n := range f.nodes {
		out[n.name] = n.os.bootedImage()
	}
	return out
}
