//go:build mco

package mco

import "github.com/tandem-mco/tandem/test/framework"

// apiserverURLs are each master's own kube-apiserver, past the load
// balancer.
func apiserverURLs(cp *framework.ControlPlane) []string {
	var out []string
	for i := range cp.APIServers() {
		out = append(out, cp.APIServerURL(i))
	}
	return out
}
