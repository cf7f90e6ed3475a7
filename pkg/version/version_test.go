package version

import (
	"runtime/debug"
	"testing"
)

func TestResolvePrefersStampsThenBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/tandem-mco/tandem", Version: "v0.2.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	cases := []struct {
		name             string
		version, commit  string
		bi               *debug.BuildInfo
		wantVer, wantCom string
	}{
		{"ldflags stamps win", "v1.0.0", "deadbeef", bi, "v1.0.0", "deadbeef"},
		{"build info fallback, dirty tree", "", "", bi, "v0.2.0", "abc123-dirty"},
		{"devel main module", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel", "unknown"},
		{"no build info", "", "", nil, "devel", "unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := resolve(c.version, c.commit, c.bi)
			if got.Version != c.wantVer || got.Commit != c.wantCom {
				t.Fatalf("resolve = %+v, want version %q commit %q", got, c.wantVer, c.wantCom)
			}
		})
	}
	if s := (Info{Version: "v1", Commit: "c", GoVersion: "go1"}).String("mcd"); s != "mcd v1 (commit c, go1)" {
		t.Fatalf("String = %q", s)
	}
}
