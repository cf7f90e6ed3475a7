package hack_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVetReportsEveryTagSet runs hack/vet.sh (verify.sh's vet step) on a
// small module whose only vet error is in an e2e-tagged test: the script
// must fail and say so. verify.sh once ran that vet with 2>/dev/null || true.
func TestVetReportsEveryTagSet(t *testing.T) {
	for _, tc := range []struct {
		name, tag string
		bad       bool
	}{
		{"clean", "e2e", false},
		{"e2e", "e2e", true},
		{"integration", "integration", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "go.mod"), "module example.test/vetfixture\n\ngo 1.26\n")
			write(t, filepath.Join(dir, "lib.go"), "package vetfixture\n\nfunc Answer() int { return 42 }\n")
			body := "if vetfixture.Answer() != 42 {\n\t\tt.Fatal(\"no\")\n\t}"
			if tc.bad {
				body = "t.Logf(\"%d\", \"not a number\")" // a printf vet error
			}
			write(t, filepath.Join(dir, "test", "e2e", "x_test.go"), "//go:build "+tc.tag+"\n\npackage e2e\n\nimport (\n\t\"testing\"\n\n\t\"example.test/vetfixture\"\n)\n\n"+
				"var _ = vetfixture.Answer\n\nfunc TestX(t *testing.T) {\n\t"+body+"\n}\n")
			cmd := exec.Command("./vet.sh", dir)
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
			out, err := cmd.CombinedOutput()
			if tc.bad && err == nil {
				t.Errorf("vet.sh passed a module with a vet error under build tag %s:\n%s", tc.tag, out)
			}
			if !tc.bad && err != nil {
				t.Errorf("vet.sh failed a clean module: %v\n%s", err, out)
			}
			if tc.bad && !strings.Contains(string(out), "x_test.go") {
				t.Errorf("vet.sh did not name the file:\n%s", out)
			}
		})
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
