#!/usr/bin/env bash
# Builds the test-only binaries (kube-apiserver, kube-controller-manager,
# kube-scheduler, etcd, kwok, controller-gen) once into a cache keyed by the
# exact inputs (this module's go.mod/go.sum, this script and the Go version),
# outside the clone, so a second fresh clone on the same machine reuses them.
# Prints the bin directory on its last line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

key="$( { cat go.mod go.sum kwok/go.mod kwok/go.sum build.sh; go version; } | sha256sum | cut -c1-16)"
cache_root="${TANDEM_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem/tools}"
bin="$cache_root/$key/bin"

# name=package[@module dir]; etcd's server module root is its main package.
# kwok has its own module (kwok/): it needs older k8s libraries.
tools=(
	"kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver"
	"kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager"
	"kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler"
	"etcd=go.etcd.io/etcd/server/v3"
	"kwok=sigs.k8s.io/kwok/cmd/kwok@kwok"
	"controller-gen=sigs.k8s.io/controller-tools/cmd/controller-gen"
)

missing=()
for t in "${tools[@]}"; do
	[[ -x "$bin/${t%%=*}" ]] || missing+=("$t")
done
if ((${#missing[@]} == 0)); then
	echo "tools: cached in $bin" >&2
	echo "$bin"
	exit 0
fi

mkdir -p "$bin"
tmp="$(mktemp -d "$cache_root/$key/tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for t in "${missing[@]}"; do
	name="${t%%=*}" pkg="${t#*=}" moddir=.
	if [[ "$pkg" == *@* ]]; then moddir="${pkg#*@}" pkg="${pkg%@*}"; fi
	echo "tools: building $name ($pkg); a cold build of all tools takes about 10 minutes on 2 cores" >&2
	start=$SECONDS
	(cd "$moddir" && go build -trimpath -ldflags=-s -o "$tmp/$name" "$pkg")
	# rename into place only when complete, so an interrupted build is never cached
	mv "$tmp/$name" "$bin/$name"
	echo "tools: built $name in $((SECONDS - start))s" >&2
done
echo "$bin"
