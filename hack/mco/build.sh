#!/usr/bin/env bash
# The fork build: tandem as the cluster's MCO image.
#
# 1. Gets the MCO's source at the pinned commit (fork/mco.env) into a cache
#    outside the clone, from the first of: $TANDEM_MCO_MIRROR (a git
#    repository or URL), a mirror in the cache ($cache/mirror.git), or
#    upstream ($MCO_REPO). It verifies that the checkout is exactly
#    MCO_COMMIT with nothing changed, every time.
# 2. Links it at fork/mco, where the fork module (fork/go.mod) replaces
#    github.com/openshift/machine-config-operator with it.
# 3. Builds, in that module, with the MCO's build tags and one version
#    stamp for all (the operator compares the render's version hash with
#    its own):
#      the MCO's operator, server, machine-os-builder, apiserver-watcher;
#      tandem's machine-config-daemon, and machine-config-controller with
#      the MCO's other controllers (fork/cmd/machine-config-controller);
#      stock/machine-config-controller, the MCO's own, for the takeover test.
#    into $cache/bin/<key>, keyed by the MCO commit, the fork module and
#    tandem's tree; a build is renamed into place only when complete.
# Prints the bin directory on its last line. Nothing of the MCO's is ever
# copied into the repository.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
fork="$repo/fork"
# shellcheck source=../../fork/mco.env
source "$fork/mco.env"
# CGO_ENABLED=0: the binaries are static, as `make image`'s are; the MCO
# copies the daemon to the host and runs it there (ReexecuteForTargetRoot),
# where another glibc than the image's may be (cmd/tandem-image checks).
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
cache="${TANDEM_MCO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem/mco}"
src="$cache/src-$MCO_COMMIT"
mkdir -p "$cache"

log() { echo "mco-fork: $*" >&2; }
die() { log "$*"; exit 1; }

verify() {
	local head
	head="$(git -C "$1" rev-parse HEAD 2>/dev/null)" || return 1
	[[ "$head" == "$MCO_COMMIT" ]] || { log "$1 is at $head, not $MCO_COMMIT"; return 1; }
	[[ -z "$(git -C "$1" status --porcelain --untracked-files=no)" ]] || { log "$1 has changes"; return 1; }
}

fetch_source() {
	local tried=() origin
	for origin in "${TANDEM_MCO_MIRROR:-}" "$cache/mirror.git" "$MCO_REPO"; do
		[[ -n "$origin" ]] || continue
		[[ "$origin" == */* && ! "$origin" =~ ^[a-z]+:// && ! -e "$origin" ]] && continue
		tried+=("$origin")
		log "cloning the MCO from $origin"
		rm -rf "$src.tmp"
		if git clone -q --no-checkout "$origin" "$src.tmp" &&
			git -C "$src.tmp" -c advice.detachedHead=false checkout -q "$MCO_COMMIT" &&
			verify "$src.tmp"; then
			mv "$src.tmp" "$src"
			return 0
		fi
		rm -rf "$src.tmp"
	done
	die "cannot get the MCO source at $MCO_COMMIT ($MCO_BRANCH) from: ${tried[*]:-nothing}.
  Give a git repository that has the commit: TANDEM_MCO_MIRROR=/path/to/machine-config-operator.git,
  or put a mirror at $cache/mirror.git (git clone --mirror $MCO_REPO $cache/mirror.git)."
}

if [[ -d "$src" ]]; then
	verify "$src" || die "the cached MCO checkout $src failed verification; remove it to fetch again"
else
	fetch_source
fi
ln -sfn "$src" "$fork/mco"

# One identity for every binary: the MCO's pkg/version form (Raw, Hash).
tandem_commit="$(git -C "$repo" rev-parse HEAD)"
# A modified tree is stamped -dirty-<hash of the changes>; changes that no
# binary is built from (tests, docs) do not count, so editing a test does
# not rebuild the image.
dirty=""
pathspec=(. ':!fork/mco' ':!test' ':!**/*_test.go' ':!docs' ':!**/*.md')
if [[ -n "$(git -C "$repo" status --porcelain --untracked-files=normal -- "${pathspec[@]}")" ]]; then
	dirty="-dirty-$( { git -C "$repo" diff HEAD -- "${pathspec[@]}"; git -C "$repo" ls-files -z --others --exclude-standard -- "${pathspec[@]}" | xargs -0r cat; } | sha256sum | cut -c1-12)"
fi
hash="$tandem_commit$dirty"
raw="$MCO_BRANCH-${MCO_COMMIT:0:8}+tandem-${tandem_commit:0:8}$dirty"
key="$( { echo "$MCO_COMMIT $hash"; cat "$fork/go.mod" "$fork/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)"
bin="$cache/bin/$key"
if [[ -f "$bin/fork.env" ]]; then
	log "cached in $bin"
	echo "$bin"
	exit 0
fi

mco=github.com/openshift/machine-config-operator
tags="containers_image_openpgp exclude_graphdriver_devicemapper exclude_graphdriver_btrfs containers_image_ostree_stub"
ldflags="-s -w -X $mco/pkg/version.Raw=$raw -X $mco/pkg/version.Hash=$hash -X $mco/pkg/version.Date=$(git -C "$repo" log -1 --format=%cI)"
ldflags+=" -X github.com/tandem-mco/tandem/pkg/version.Version=$raw -X github.com/tandem-mco/tandem/pkg/version.Commit=$tandem_commit$dirty"
ldflags+=" -X github.com/tandem-mco/tandem/pkg/version.Hash=$hash"

mkdir -p "$cache/bin"
tmp="$(mktemp -d "$cache/bin/tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
log "building the MCO image's binaries ($raw); a cold build takes about 10 minutes on 2 cores"
cd "$fork"
go build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$tmp/" \
	$mco/cmd/machine-config-operator $mco/cmd/machine-config-server \
	$mco/cmd/machine-os-builder $mco/cmd/apiserver-watcher \
	github.com/tandem-mco/tandem/cmd/machine-config-daemon \
	./cmd/machine-config-controller
mkdir -p "$tmp/stock"
go build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$tmp/stock/" $mco/cmd/machine-config-controller
cat >"$tmp/fork.env" <<ENV
MCO_SRC=$src
MCO_COMMIT=$MCO_COMMIT
VERSION_RAW=$raw
VERSION_HASH=$hash
ENV
rm -rf "$bin"
mv "$tmp" "$bin"
trap - EXIT
# Every commit of tandem makes a new build; keep the newest five.
ls -1dt "$cache"/bin/*/ 2>/dev/null | tail -n +6 | xargs -r rm -rf
log "built in $((SECONDS - start))s"
echo "$bin"
