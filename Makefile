# tandem: Machine Config Daemon / Controller with staged, ordered, non-disruptive updates.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
export GOTOOLCHAIN := local

# containers/image: use its pure-Go OpenPGP instead of cgo gpgme.
GO_TAGS := containers_image_openpgp
GO := go
# Built once per machine into a cache outside the clone (see hack/tools/build.sh).
TOOLS = export TANDEM_TOOLS_BIN="$$(hack/tools/build.sh)";
# Packages that hold integration tests (build tag `integration`).
INTEGRATION_PKGS = $$(grep -rl --include='*_test.go' '^//go:build integration' pkg cmd test 2>/dev/null | xargs -r -n1 dirname | sort -u | sed 's|^|./|')

.PHONY: all binaries tools go-deps verify test test-unit test-integration test-e2e test-long run \
	bench-io bench-etcd-rollout bench-disruption bench-scale crds clean

all: binaries

## binaries: build every command into bin/
binaries:
	$(GO) build -tags $(GO_TAGS) -o bin/ ./cmd/...

## tools: build (or reuse) kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok, controller-gen
tools:
	hack/tools/build.sh

## go-deps: tidy and vendor the main module, and re-copy the openshift/api CRDs
go-deps:
	$(GO) mod tidy
	$(GO) mod vendor
	hack/sync-openshift-crds.sh

## crds: regenerate tandem's CRDs and deepcopy code with controller-gen
crds:
	hack/generate-crds.sh "$$(hack/tools/build.sh)/controller-gen"

## verify: gofmt, go vet, vendor and generated files in sync
verify:
	hack/verify.sh

## test: what CI runs: verify, unit, integration and e2e tests
test: verify test-unit test-integration test-e2e

test-unit:
	$(GO) test -tags $(GO_TAGS) -count=1 -v ./... 2>&1 | hack/test-filter.sh

## test-long: the planner's property test over 20000 schedules (make test runs 3000)
test-long:
	$(GO) test -tags $(GO_TAGS) -count=1 -timeout 60m -v -run TestPlannerInvariants ./pkg/controller/node/ -args -planner-schedules=20000 2>&1 | hack/test-filter.sh

test-integration:
	$(TOOLS) $(GO) test -tags integration,$(GO_TAGS) -count=1 -timeout 40m -v $(INTEGRATION_PKGS) 2>&1 | hack/test-filter.sh

test-e2e:
	$(TOOLS) if compgen -G 'test/e2e/*_test.go' >/dev/null; then $(GO) test -tags e2e,$(GO_TAGS) -count=1 -timeout 40m -v ./test/e2e/... 2>&1 | hack/test-filter.sh; else echo "test-e2e: no e2e tests yet"; fi

## run: the main job on an embedded default (a local cluster and a rolling staged upgrade)
run:
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/tandem-local $(ARGS)

## bench-io: etcd fsync latency while staging an OS under each I/O policy (root, real disk)
bench-io:
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/bench-io $(ARGS)

## bench-etcd-rollout: leader changes and failed writes per control-plane rollout ordering
bench-etcd-rollout:
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/bench-etcd-rollout $(ARGS)

## bench-disruption: cordon-to-uncordon window with and without pre-staging
bench-disruption:
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/bench-disruption $(ARGS)

## bench-scale: a rollout across --nodes kwok nodes (default 1000) with simulated daemons, and the planner's slope
bench-scale:
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/bench-scale $(ARGS)

clean:
	rm -rf bin/
