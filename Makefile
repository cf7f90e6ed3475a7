# tandem: Machine Config Daemon / Controller with staged, ordered, non-disruptive updates.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
export GOTOOLCHAIN := local
# -trimpath keeps the build cache's keys free of the checkout's path: a fresh
# clone somewhere else (CI's) reuses what an earlier clone compiled instead of
# recompiling the vendor tree for every tag set (vet: 154 s in a new path, 1 s).
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

# containers/image: use its pure-Go OpenPGP instead of cgo gpgme.
GO_TAGS := containers_image_openpgp
GO := go
# Built once per machine into a cache outside the clone (see hack/tools/build.sh).
TOOLS = export TANDEM_TOOLS_BIN="$$(hack/tools/build.sh)";
# Packages that hold integration tests (build tag `integration`).
INTEGRATION_PKGS = $$(grep -rl --include='*_test.go' '^//go:build integration' pkg cmd test 2>/dev/null | xargs -r -n1 dirname | sort -u | sed 's|^|./|')

.PHONY: all binaries tools go-deps verify test test-unit test-integration test-e2e test-long run \
	bench-io bench-etcd-rollout bench-disruption bench-scale crds clean image vm-deps vm-image test-vm vm-shell \
	mco-fork mco-image mco-names test-mco lb-deps

all: binaries

## binaries: build every command into bin/
binaries:
	$(GO) build -tags $(GO_TAGS) -o bin/ ./cmd/...

## image: the OCI image with both binaries (static), as an OCI layout in bin/image
##   (IMAGE_TAG, IMAGE_BASE: oci:DIR[:REF] or a registry reference, empty for none)
IMAGE_TAG ?= tandem:latest
IMAGE_BASE ?=
image:
	$(GO) run -tags $(GO_TAGS) ./cmd/tandem-image --output bin/image --tag $(IMAGE_TAG) --base "$(IMAGE_BASE)" $(ARGS)

## mco-fork: get the pinned MCO source (fork/mco.env) and build (or reuse) the MCO image's binaries
##   from it and tandem (hack/mco/build.sh; TANDEM_MCO_MIRROR names a git mirror); prints their directory
mco-fork:
	hack/mco/build.sh

## mco-image: tandem as the cluster's MCO image (the fork build's six binaries, /manifests,
##   /etc/mcc/templates, the operator as entrypoint), an OCI layout in bin/mco-image
##   (MCO_IMAGE_TAG; IMAGE_BASE: the release's MCO base image)
MCO_IMAGE_TAG ?= machine-config-operator:tandem
mco-image:
	$(GO) run -tags $(GO_TAGS) ./cmd/tandem-image --output bin/mco-image --tag $(MCO_IMAGE_TAG) --base "$(IMAGE_BASE)" \
		--fork-bin "$$(hack/mco/build.sh)" $(ARGS)

## mco-names: recompute pkg/controller/render/testdata/mco-names.json with the MCO's own render code
##   at the pinned commit (fork/cmd/mco-names), the record tandem's render is judged against
mco-names:
	hack/mco/build.sh >/dev/null
	source fork/mco.env && cd fork && GOFLAGS="-mod=mod -trimpath" $(GO) run -tags "$(GO_TAGS) exclude_graphdriver_devicemapper exclude_graphdriver_btrfs containers_image_ostree_stub" \
		./cmd/mco-names -cases ../pkg/controller/render/testdata/mco-cases.json \
		-out ../pkg/controller/render/testdata/mco-names.json -commit "$$MCO_COMMIT"

## tools: build (or reuse) kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok, controller-gen
tools:
	hack/tools/build.sh

## go-deps: tidy and vendor the main module (the openshift/api CRDs the tests install are read
##   from the module at go.mod's version: test/framework/openshift_crds.go)
go-deps:
	$(GO) mod tidy
	$(GO) mod vendor

## crds: regenerate tandem's CRDs and deepcopy code with controller-gen
crds:
	hack/generate-crds.sh "$$(hack/tools/build.sh)/controller-gen"

## verify: gofmt, go vet, vendor and generated files in sync
verify:
	hack/verify.sh

## test: what CI runs: verify, unit, integration, e2e, the MCO image and VM node tests; every level
##   runs even when one before it failed (hack/test-levels.sh), then the failed ones are listed
TEST_LEVELS := verify test-unit test-integration test-e2e test-mco test-vm
test:
	MAKE="$(MAKE)" hack/test-levels.sh $(TEST_LEVELS)

# The tests under manifests/ read the MCO's own manifests at the pinned
# commit: hack/mco/build.sh fetches and links them (fork/mco) first.
test-unit:
	hack/mco/build.sh >/dev/null
	$(GO) test -tags $(GO_TAGS) -count=1 -v ./... 2>&1 | hack/test-filter.sh

## test-long: the planner's property test over 20000 schedules (make test runs 3000)
test-long:
	$(GO) test -tags $(GO_TAGS) -count=1 -timeout 60m -v -run TestPlannerInvariants ./pkg/controller/node/ -args -planner-schedules=20000 2>&1 | hack/test-filter.sh

test-integration: lb-deps
	$(TOOLS) $(GO) test -tags integration,$(GO_TAGS) -count=1 -timeout 40m -v $(INTEGRATION_PKGS) 2>&1 | hack/test-filter.sh

test-e2e: lb-deps
	$(TOOLS) if compgen -G 'test/e2e/*_test.go' >/dev/null; then $(GO) test -tags e2e,$(GO_TAGS) -count=1 -timeout 40m -v ./test/e2e/... 2>&1 | hack/test-filter.sh; else echo "test-e2e: no e2e tests yet"; fi

## test-mco: the MCO image and the MCO's own operator driving tandem (test/mco; needs the fork build)
test-mco: mco-image lb-deps
	$(TOOLS) export TANDEM_MCO_BIN="$$(hack/mco/build.sh)" TANDEM_MCO_IMAGE="$(CURDIR)/bin/mco-image" TANDEM_MCO_IMAGE_TAG="$(MCO_IMAGE_TAG)"; \
		(cd fork && GOFLAGS="-mod=mod -trimpath" $(GO) vet -tags "$(GO_TAGS) exclude_graphdriver_devicemapper exclude_graphdriver_btrfs containers_image_ostree_stub" ./...) && \
		$(GO) test -tags mco,$(GO_TAGS) -count=1 -timeout 60m -v ./test/mco/... 2>&1 | hack/test-filter.sh

## lb-deps: haproxy, the load balancer in front of a world's apiservers (one per master, as
##   on-premise OpenShift runs its API VIP); Debian's, installed only when missing
##   (policy-rc.d keeps the package's init script from starting a haproxy of its own)
lb-deps:
	@command -v haproxy >/dev/null || { echo "lb-deps: installing haproxy"; \
		policy=/usr/sbin/policy-rc.d; own=0; [[ -e $$policy ]] || { printf '#!/bin/sh\nexit 101\n' >$$policy; chmod +x $$policy; own=1; }; \
		rc=0; { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy; } || rc=$$?; \
		((own)) && rm -f $$policy; exit $$rc; }

## vm-deps: the Debian packages the VM node needs (installed only when missing)
vm-deps:
	@missing=(); \
	command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86); \
	command -v qemu-img >/dev/null || missing+=(qemu-utils); \
	command -v mmdebstrap >/dev/null || missing+=(mmdebstrap); \
	command -v mkfs.ext4 >/dev/null || missing+=(e2fsprogs); \
	if (($${#missing[@]})); then echo "vm-deps: installing $${missing[*]}"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$${missing[@]}"; fi

## vm-image: build (or reuse) the VM node image in ~/.cache/tandem/vm; prints its directory
vm-image: vm-deps
	$(GO) run -tags $(GO_TAGS) ./test/vm/cmd/vm-image

## test-vm: the real node in a QEMU VM (systemd, cgroup v2, reboots, power losses); docs/vm-node.md
test-vm: vm-deps
	$(TOOLS) $(GO) test -tags vm,$(GO_TAGS) -count=1 -timeout 120m -v ./test/vm/ 2>&1 | hack/test-filter.sh

## vm-shell: boot one VM node and open its console (ARGS=-check: boot, reboot, power-cycle, timings)
vm-shell: vm-deps
	$(GO) run -tags $(GO_TAGS) ./test/vm/cmd/vm-shell $(ARGS)

## run: the main job on an embedded default (a local cluster and a rolling staged upgrade)
run: lb-deps
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/tandem-local $(ARGS)

## bench-io: the I/O governor's frontier: etcd fsync p99 against stage time per target, none and writeback (root, real disk, at most 29 min)
bench-io:
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/bench-io $(ARGS)

## bench-etcd-rollout: leader changes and failed writes per control-plane rollout ordering
bench-etcd-rollout:
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/bench-etcd-rollout $(ARGS)

## bench-disruption: cordon-to-uncordon window with and without pre-staging
bench-disruption: lb-deps
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/bench-disruption $(ARGS)

## bench-scale: a rollout across --nodes kwok nodes (default 1000) with simulated daemons, and the planner's slope
bench-scale:
	$(TOOLS) $(GO) run -tags $(GO_TAGS) ./cmd/bench-scale $(ARGS)

clean:
	rm -rf bin/
