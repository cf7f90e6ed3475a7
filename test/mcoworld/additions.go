package mcoworld

import (
	"fmt"
	"net"
)

// The test world's additions to the pods the operator deployed: every
// change the harness makes to their command lines and environment is in
// this file. Beyond these, the kubelet stand-in (kubelet.go) runs a pod's
// container as the kubelet would, but as a host process: $(VAR) expanded,
// NODE_NAME from spec.nodeName, a ConfigMap volume's files written to the
// host and paths under its mount pointed there.

// The operator has none: like every process here, it reaches the API
// server as its pod's service account (Identity), through client-go's
// in-cluster config.

// controllerAdditions: a metrics port of its own (every process shares
// the host's loopback; the MCO's 127.0.0.1:8797 is per pod network
// namespace, or per node for host-network daemons), and the templates
// where the host has the image's /etc/mcc/templates (the flag's default
// is that image path).
func controllerAdditions(metricsPort int, templates string) []string {
	return []string{fmt.Sprintf("--metrics-listen-address=127.0.0.1:%d", metricsPort), "--templates=" + templates}
}

// daemonAdditions: a metrics port of its own; then framework.SimNode adds
// the flags that make a directory a node (its nodeArgs: --root-mount=/ and
// --root=<dir>, the harness host, the rpm-ostree double, boot id and
// cmdline files).
func daemonAdditions(metricsPort int) []string {
	return []string{fmt.Sprintf("--metrics-url=127.0.0.1:%d", metricsPort)}
}

// serverAdditions: the machine-config-server's ports. Each master's server
// listens on the node's 22623 and 22624 (host network); on one host the
// world's servers need ports of their own, and the world's load balancer
// for api-int:22623 (mcsBackends) finds them. Its certificate, key and
// bootstrap token stay at the pod's paths (Secret volumes, podns).
// It returns the secure port with them.
func serverAdditions() (additions []string, secure int, err error) {
	secure, err = freePort()
	if err != nil {
		return nil, 0, err
	}
	insecure, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	return []string{fmt.Sprintf("--secure-port=%d", secure), fmt.Sprintf("--insecure-port=%d", insecure)}, secure, nil
}

// freePort reserves a loopback port for a process to listen on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("reserving a loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// stockDaemonAdditions: on a node whose daemon pod runs the stock MCO
// image, the world's stand-in for the MCO's daemon (which needs a real
// RHCOS host) is tandem's daemon in the stock MCD's order: drain, then
// pull and write, then reboot; no staging ahead.
func stockDaemonAdditions() []string {
	return []string{"--update-order=stock"}
}
