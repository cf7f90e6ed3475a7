package mcoworld

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Diagnose is what a failing test shows: the ClusterOperator's
// conditions, the pools' status, each node's annotations, the pods and
// the last lines of every process log.
func (w *World) Diagnose(ctx context.Context) string {
	var b strings.Builder
	if co, err := w.Config.ConfigV1().ClusterOperators().Get(ctx, "machine-config", metav1.GetOptions{}); err == nil {
		fmt.Fprintf(&b, "clusteroperator machine-config versions %v\n", co.Status.Versions)
		for _, c := range co.Status.Conditions {
			fmt.Fprintf(&b, "  %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	if pools, err := w.CP.MCO.MachineconfigurationV1().MachineConfigPools().List(ctx, metav1.ListOptions{}); err == nil {
		for _, p := range pools.Items {
			fmt.Fprintf(&b, "pool %s: spec %s status %s machines=%d updated=%d degraded=%d\n", p.Name, p.Spec.Configuration.Name,
				p.Status.Configuration.Name, p.Status.MachineCount, p.Status.UpdatedMachineCount, p.Status.DegradedMachineCount)
			for _, c := range p.Status.Conditions {
				if c.Status == "True" {
					fmt.Fprintf(&b, "  %s %s: %s\n", c.Type, c.Reason, c.Message)
				}
			}
		}
	}
	if nodes, err := w.CP.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
		for _, n := range nodes.Items {
			var ann []string
			for k, v := range n.Annotations {
				if strings.HasPrefix(k, "machineconfiguration.openshift.io/") {
					ann = append(ann, strings.TrimPrefix(k, "machineconfiguration.openshift.io/")+"="+v)
				}
			}
			sort.Strings(ann)
			fmt.Fprintf(&b, "node %s unschedulable=%t %s\n", n.Name, n.Spec.Unschedulable, strings.Join(ann, " "))
		}
	}
	if pods, err := w.CP.Kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{}); err == nil {
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "pod %s on %s: %s\n", p.Name, p.Spec.NodeName, p.Status.Phase)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(w.opts.Dir, "logs", "*.log"))
	nodeLogs, _ := filepath.Glob(filepath.Join(w.opts.Dir, "nodes", "*", "*.log"))
	for _, l := range append(logs, nodeLogs...) {
		fmt.Fprintf(&b, "--- %s (last lines)\n%s\n", l, tail(l, 15))
	}
	return b.String()
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 400 {
			lines[i] = l[:400] + "..."
		}
	}
	return strings.Join(lines, "\n")
}
