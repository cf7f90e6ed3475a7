package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/test/framework"
)

// printCluster prints nodes and pools the way `kubectl get` would.
func printCluster(ctx context.Context, out io.Writer, c *cluster) error {
	nodes, err := c.cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	pools, err := c.cp.MCO.MachineconfigurationV1().MachineConfigPools().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing pools: %w", err)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NODE\tROLES\tREADY")
	for _, n := range nodes.Items {
		roles := ""
		for l := range n.Labels {
			if len(l) > len("node-role.kubernetes.io/") && l[:len("node-role.kubernetes.io/")] == "node-role.kubernetes.io/" {
				roles = l[len("node-role.kubernetes.io/"):]
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%v\n", n.Name, roles, framework.NodeReady(&n))
	}
	fmt.Fprintln(w, "\nPOOL\tMAXUNAVAILABLE\tNODESELECTOR")
	for _, p := range pools.Items {
		fmt.Fprintf(w, "%s\t%s\t%v\n", p.Name, p.Spec.MaxUnavailable.String(), p.Spec.NodeSelector.MatchLabels)
	}
	return w.Flush()
}
