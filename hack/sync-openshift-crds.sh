#!/usr/bin/env bash
# Copies the openshift/api CRD manifests tandem's test control planes install
# (MachineConfig, MachineConfigPool, MachineConfigNode, ControllerConfig,
# MachineOSConfig, MachineConfiguration, Scheduler) from
# the exact openshift/api version in go.mod into manifests/crds/openshift.
# `go mod vendor` keeps only Go packages, so these YAML files are vendored here;
# `make verify` re-runs this and fails if the copy drifts from go.mod's version.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' github.com/openshift/api)"
if [[ -z "$dir" || ! -d "$dir" ]]; then
	GOFLAGS=-mod=mod go mod download github.com/openshift/api
	dir="$(GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' github.com/openshift/api)"
fi
src="$dir/machineconfiguration/v1/zz_generated.crd-manifests"
dst=manifests/crds/openshift
rm -f "$dst"/*.yaml
for f in \
	0000_80_machine-config_01_machineconfigs.crd.yaml \
	0000_80_machine-config_01_machineconfigpools-Default.crd.yaml \
	0000_80_machine-config_01_machineconfignodes-SelfManagedHA-Default.crd.yaml \
	0000_80_machine-config_01_controllerconfigs-Default.crd.yaml \
	0000_80_machine-config_01_machineosconfigs.crd.yaml; do
	install -m 0644 "$src/$f" "$dst/$f"
done
# MachineConfiguration (operator.openshift.io/v1): the node disruption policies the daemon reads.
install -m 0644 "$dir/operator/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigurations-Default.crd.yaml" \
	"$dst/0000_80_machine-config_01_machineconfigurations-Default.crd.yaml"
# Scheduler cluster (config.openshift.io/v1): the controller keeps the masters'
# NoSchedule taint and worker label from spec.mastersSchedulable, as the MCO's
# node controller does.
install -m 0644 "$dir/config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_schedulers-SelfManagedHA-Default.crd.yaml" \
	"$dst/0000_10_config-operator_01_schedulers-SelfManagedHA-Default.crd.yaml"
echo "synced $(ls "$dst" | wc -l) CRDs from $(basename "$dir")"
