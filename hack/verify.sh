#!/usr/bin/env bash
# Fails when formatting, vet, the vendor tree or generated files are off.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
tags=containers_image_openpgp
fail=0

unformatted="$(find . -name '*.go' -not -path './vendor/*' -not -path './hack/tools/*' -print0 | xargs -0 gofmt -l)"
if [[ -n "$unformatted" ]]; then
	echo "verify: gofmt needed on:"; echo "$unformatted"; fail=1
fi

hack/vet.sh || fail=1

# go.mod/go.sum tidy and vendor/ matching them.
if ! go mod tidy -diff >/dev/null; then
	echo "verify: go.mod/go.sum are not tidy: run make go-deps"; fail=1
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
go mod vendor -o "$tmp/vendor"
if ! diff -r -q vendor "$tmp/vendor" >/dev/null; then
	echo "verify: vendor/ is out of sync: run make go-deps"; diff -r -q vendor "$tmp/vendor" | head; fail=1
fi

# Generated CRDs and deepcopy code are current.
if [[ -x hack/generate-crds.sh ]]; then
	before="$(git status --porcelain -- manifests pkg/apis)"
	hack/generate-crds.sh "$(hack/tools/build.sh)/controller-gen" >/dev/null
	after="$(git status --porcelain -- manifests pkg/apis)"
	if [[ "$before" != "$after" ]]; then
		echo "verify: generated CRDs/deepcopy are stale: run make crds"; echo "$after"; fail=1
	fi
fi

if ((fail)); then echo "verify: FAILED"; exit 1; fi
echo "verify: ok"
