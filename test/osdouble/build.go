package osdouble

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// CLIPackage is the import path of the rpm-ostree double's main package.
const CLIPackage = "github.com/tandem-mco/tandem/test/osdouble/cmd/rpm-ostree"

// BuildCLI builds the rpm-ostree double into dir/rpm-ostree and returns its
// path. Tests call it from TestMain and put dir first on PATH. The same
// binary is the transaction daemon: `rpm-ostree start-daemon`, as
// upstream's rpm-ostreed.service runs it (see StartDaemonProcess).
func BuildCLI(ctx context.Context, dir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, "rpm-ostree")
	cmd := exec.CommandContext(ctx, goBin, "build", "-tags=containers_image_openpgp", "-o", out, CLIPackage)
	cmd.Env = os.Environ()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the rpm-ostree double: %w\n%s", err, b)
	}
	return out, nil
}

// PrependPath returns PATH with dir first, for the environment of processes
// that must find the double as rpm-ostree.
func PrependPath(dir string) string {
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}
