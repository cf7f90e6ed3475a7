#!/usr/bin/env bash
# go vet of every build-tag set the tests use: plain, integration and e2e.
# Any failure fails the script (verify.sh once hid the e2e one). With a
# directory argument it vets that module instead (hack/vet_test.go).
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"
export GOTOOLCHAIN=local
tags=containers_image_openpgp
fail=0
go vet -tags "$tags" ./... || fail=1
go vet -tags "integration,$tags" ./... || fail=1
if compgen -G 'test/e2e/*.go' >/dev/null; then
	go vet -tags "e2e,$tags" ./test/e2e/... || { echo "vet: the e2e tests (build tag e2e) do not pass go vet"; fail=1; }
fi
exit "$fail"
