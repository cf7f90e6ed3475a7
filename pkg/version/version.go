// Package version tells which build of tandem is running. The release
// build (make image, make binaries) stamps Version and Commit with
// -ldflags -X; a plain `go build` or `go run` falls back to what the Go
// toolchain recorded in the binary (runtime/debug build info: the module
// version and the VCS revision), so a binary never claims a version it was
// not built from.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Stamped at link time:
//
//	-X github.com/tandem-mco/tandem/pkg/version.Version=v0.3.0
//	-X github.com/tandem-mco/tandem/pkg/version.Commit=<git sha>
var (
	Version = ""
	Commit  = ""
)

// Info is a build's identity.
type Info struct {
	Version   string // release version, or the module version, or "devel"
	Commit    string // VCS revision, with "-dirty" when built from a modified tree; "unknown" if not recorded
	GoVersion string
}

// Get returns this binary's identity: the ldflags stamps when set, else the
// build info the toolchain embedded.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(Version, Commit, bi)
}

// resolve is Get without the global inputs, for tests.
func resolve(version, commit string, bi *debug.BuildInfo) Info {
	info := Info{Version: version, Commit: commit, GoVersion: runtime.Version()}
	if bi != nil {
		info.GoVersion = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		if info.Commit == "" {
			info.Commit = vcsCommit(bi.Settings)
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	if info.Commit == "" {
		info.Commit = "unknown"
	}
	return info
}

func vcsCommit(settings []debug.BuildSetting) string {
	var rev string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// String is the one line `--version` prints, e.g.
// "machine-config-daemon v0.3.0 (commit 1a2b3c4, go1.26.8)".
func (i Info) String(program string) string {
	return fmt.Sprintf("%s %s (commit %s, %s)", program, i.Version, i.Commit, i.GoVersion)
}

// Hash is the build's version hash in the MCO's pkg/version form: the
// operator compares it with the machineconfiguration.openshift.io/
// generated-by-controller-version annotation the render stamps, so every
// binary of one MCO image carries the same value. The fork build (fork/,
// hack/mco-fork.sh) stamps it here and into the MCO's own pkg/version.Hash:
//
//	-X github.com/tandem-mco/tandem/pkg/version.Hash=<hash>
var Hash = ""

// MCOHash is Hash, or the commit when the build stamped none.
func (i Info) MCOHash() string {
	if Hash != "" {
		return Hash
	}
	return i.Commit
}

// MCOString is the line the MCO's `version` subcommands print, e.g.
// "MachineConfigDaemon v0.3.0-1a2b3c4" (cmd/machine-config-daemon/version.go
// at release-4.21: program, Raw + "-" + Hash).
func (i Info) MCOString(program string) string {
	return program + " " + i.Version + "-" + i.MCOHash()
}
