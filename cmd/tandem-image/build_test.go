package main

import (
	"os"
	"strings"
	"testing"
)

func TestRequireStaticRejectsADynamicBinary(t *testing.T) {
	// The test binary itself is linked with cgo here (a C toolchain is
	// present), like any `go build` without CGO_ENABLED=0; /bin/sh is a
	// distribution binary, dynamic everywhere this runs.
	for _, p := range []string{"/bin/sh"} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s: %v", p, err)
		}
		err := requireStatic(p)
		if err == nil || !strings.Contains(err.Error(), "dynamically linked") {
			t.Fatalf("requireStatic(%s) = %v, want a dynamically-linked error", p, err)
		}
	}
	if err := requireStatic("/nonexistent/binary"); err == nil {
		t.Fatal("requireStatic of a missing file succeeded")
	}
}

func TestSplitLayoutRefFollowsTheOCITransport(t *testing.T) {
	for in, want := range map[string][2]string{
		"/l":             {"/l", ""},
		"/l:ubi9:latest": {"/l", "ubi9:latest"},
		"rel/dir:base":   {"rel/dir", "base"},
	} {
		d, r := splitLayoutRef(in)
		if d != want[0] || r != want[1] {
			t.Errorf("splitLayoutRef(%q) = %q, %q; want %q, %q", in, d, r, want[0], want[1])
		}
	}
}
