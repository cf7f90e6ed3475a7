//go:build mco

package mco

import (
	"context"
	"debug/elf"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/mcoworld"
)

// EnvImage names the MCO image's OCI layout (make mco-image; make test-mco
// sets it) and EnvImageTag its tag.
const (
	EnvImage    = "TANDEM_MCO_IMAGE"
	EnvImageTag = "TANDEM_MCO_IMAGE_TAG"
)

// programs are the MCO image's binaries, at the MCO's paths.
var programs = []string{
	"machine-config-operator", "machine-config-server", "machine-os-builder", "apiserver-watcher",
	"machine-config-daemon", "machine-config-controller",
}

// TestMCOImage unpacks the MCO image and runs it as a cluster would: every
// binary answers `version` with the one version hash; the MCO's own
// operator, started from the image with its Deployment's command line,
// deploys the daemon DaemonSet and the controller Deployment; tandem's
// binaries from the image, started with exactly those pods' command lines
// (plus the world's listed test-only additions), run and report the
// release they were started for; and the controller's template
// controller completes the operator's ControllerConfig.
func TestMCOImage(t *testing.T) {
	fork, err := mcoworld.LocateFork()
	if err != nil {
		t.Fatal(err)
	}
	layout, tag := os.Getenv(EnvImage), os.Getenv(EnvImageTag)
	if layout == "" || tag == "" {
		t.Fatalf("$%s and $%s name the MCO image (make mco-image); run this test with make test-mco", EnvImage, EnvImageTag)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dir := t.TempDir()
	root := filepath.Join(dir, "image")
	cfg, err := unpack(ctx, layout, tag, root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{"/usr/bin/machine-config-operator"}) || cfg.Config.Labels["io.openshift.release.operator"] != "true" {
		t.Fatalf("image config: entrypoint %v, labels %v; want the operator and the release operator label", cfg.Config.Entrypoint, cfg.Config.Labels)
	}
	for _, p := range []string{"manifests/0000_80_machine-config_04_deployment.yaml", "manifests/image-references",
		"manifests/0000_80_machine-config_50_tandem-rbac.yaml",
		"manifests/0000_80_machine-config_01_tandem_dpu.machineconfiguration.openshift.io_hostmaintenances.yaml",
		"etc/mcc/templates/common/_base/units/machine-config-daemon-firstboot.service.yaml"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("image lacks /%s: %v", p, err)
		}
	}

	// The MCO runs the daemon (and firstboot) binaries on the host, whose
	// glibc is not the image's: each must be static (no ELF interpreter).
	static := 0
	for _, p := range programs {
		f, err := elf.Open(filepath.Join(root, "usr/bin", p))
		if err != nil {
			t.Errorf("/usr/bin/%s: %v", p, err)
			continue
		}
		interp := slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
		f.Close()
		if interp {
			t.Errorf("/usr/bin/%s is dynamically linked", p)
			continue
		}
		static++
	}

	ran := 0
	for _, p := range programs {
		out, err := exec.CommandContext(ctx, filepath.Join(root, "usr/bin", p), "version").CombinedOutput()
		switch {
		case err != nil:
			t.Errorf("/usr/bin/%s version: %v\n%s", p, err, out)
		case !strings.Contains(string(out), fork.Hash):
			t.Errorf("/usr/bin/%s version = %q, want the fork's version hash %s", p, out, fork.Hash)
		default:
			ran++
		}
	}

	const version = "4.21.0-tandem.1"
	release := mcoworld.NewRelease(version, "registry.tandem.test", "", "")
	w, err := mcoworld.Start(ctx, mcoworld.Options{
		Dir: dir, Masters: []string{"master-0"}, Workers: []string{"worker-0"},
		ImagePath: func(p string) (string, error) { return filepath.Join(root, p), nil },
	}, release)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })

	accepted := 0
	for _, c := range []struct{ what, key, selector, container string }{
		{"the controller Deployment's command line", "controller", "k8s-app=machine-config-controller", "machine-config-controller"},
		{"the daemon DaemonSet's command line", "daemon/worker-0", "k8s-app=machine-config-daemon", "machine-config-daemon"},
	} {
		err := framework.Await(ctx, c.what+" taken by tandem", 10*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
			_, ctr, err := w.PodContainer(ctx, c.selector, c.container)
			if err != nil {
				return false, err.Error() + "; processes started: " + fmt.Sprint(w.Kubelet.Running()), nil
			}
			url := w.MetricsURL(c.key)
			if url == "" {
				return false, fmt.Sprintf("pod command %v %v, no process yet", ctr.Command, ctr.Args), nil
			}
			info, err := buildInfo(ctx, url)
			if err != nil {
				return false, fmt.Sprintf("pod command %v %v: %v", ctr.Command, ctr.Args, err), nil
			}
			want := fmt.Sprintf(`payload_version="%s"`, version)
			return strings.Contains(info, want), "tandem_build_info: " + info, nil
		})
		if err != nil {
			t.Error(err)
			continue
		}
		accepted++
	}

	completed := false
	err = framework.Await(ctx, "the operator's ControllerConfig completed by the template controller", 10*time.Minute, 2*time.Second, func(ctx context.Context) (bool, string, error) {
		cc, err := w.CP.MCO.MachineconfigurationV1().ControllerConfigs().Get(ctx, "machine-config-controller", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		for _, c := range cc.Status.Conditions {
			if c.Type == mcfgv1.TemplateControllerCompleted && c.Status == "True" && cc.Status.ObservedGeneration == cc.Generation {
				completed = true
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("generation %d, observed %d, conditions %v", cc.Generation, cc.Status.ObservedGeneration, cc.Status.Conditions), nil
	})
	if err != nil {
		t.Error(err)
	}
	idOK, idTotal, idProblems := w.CheckIdentities(ctx)
	for _, p := range idProblems {
		t.Error(p)
	}
	t.Logf("identities %d/%d", idOK, idTotal)
	fmt.Printf("mco-image: binaries=%d static_binaries=%d/%d args_accepted=%d/2 template_controller_completed=%t\n", ran, static, len(programs), accepted, completed)
	if ran != len(programs) {
		t.Errorf("%d of %d binaries ran", ran, len(programs))
	}
}

// buildInfo returns the tandem_build_info series a process serves.
func buildInfo(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "tandem_build_info{") {
			return line, nil
		}
	}
	return "", fmt.Errorf("no tandem_build_info in %s", url)
}
