#!/usr/bin/env bash
# Regenerates tandem's deepcopy code (pkg/apis/...) and CRD manifests
# (manifests/crds/tandem/) with controller-gen.
#   hack/generate-crds.sh <path-to-controller-gen>
set -euo pipefail
cg="${1:?usage: hack/generate-crds.sh <path-to-controller-gen>}"
cd "$(dirname "$0")/.."

"$cg" object paths=./pkg/apis/...
out=manifests/crds/tandem
# Generate into a scratch dir and swap, so a CRD whose type was removed does
# not linger, and the .keep placeholder is not needed once a CRD exists.
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$cg" crd:crdVersions=v1 paths=./pkg/apis/... output:crd:artifacts:config="$tmp"
mkdir -p "$out"
rm -f "$out"/*.yaml "$out"/.keep
cp "$tmp"/*.yaml "$out"/
ls "$out"
