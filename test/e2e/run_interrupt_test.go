//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunStopsOnCtrlC is `make run ARGS=--keep-running` interrupted once
// its clusters are up: Ctrl-C (SIGINT to the foreground process group, as a
// terminal sends it) must stop tandem-local and every process it started
// within 15 s (issue 16: it ignored Ctrl-C for over a minute, and killing it
// then left kube-apiserver and etcd running).
func TestRunStopsOnCtrlC(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tandem-local")
	build := exec.Command("go", "build", "-tags=containers_image_openpgp", "-o", bin, "../../cmd/tandem-local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tandem-local: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--workers=1", "--dpus=1", "--image-mib=1", "--keep-running",
		"--table-every=1m", "--dir="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a shell job: its own process group
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan struct{})
	var tail []string
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			tail = append(tail, line)
			if len(tail) > 40 {
				tail = tail[1:]
			}
			if strings.Contains(line, "clusters keep running") {
				close(ready)
			}
		}
		exited <- cmd.Wait()
	}()
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()

	select {
	case <-ready:
	case err := <-exited:
		t.Fatalf("tandem-local exited before keeping the clusters running: %v; its output ended:\n%s", err, strings.Join(tail, "\n"))
	case <-time.After(12 * time.Minute):
		t.Fatalf("tandem-local did not reach keep-running in 12 minutes; its output ended:\n%s", strings.Join(tail, "\n"))
	}
	started := descendantsOf(cmd.Process.Pid)
	t.Logf("tandem-local (pid %d) runs %d processes; sending Ctrl-C", cmd.Process.Pid, len(started))
	if len(started) < 10 {
		t.Fatalf("only %d processes under tandem-local: %v", len(started), started)
	}
	t0 := time.Now()
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	const bound = 15 * time.Second
	select {
	case <-exited:
	case <-time.After(bound):
		t.Fatalf("tandem-local still runs %s after Ctrl-C", bound)
	}
	stoppedIn := time.Since(t0)
	for {
		var alive []string
		for pid, name := range started {
			if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(st), ") Z ") {
				alive = append(alive, fmt.Sprintf("%d(%s)", pid, name))
			}
		}
		if len(alive) == 0 {
			break
		}
		if time.Since(t0) > bound {
			t.Fatalf("%s after Ctrl-C these processes tandem-local started still run: %v", bound, alive)
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("run-interrupt: processes=%d exit_s=%.1f all_gone_s=%.1f\n", len(started), stoppedIn.Seconds(), time.Since(t0).Seconds())
}

// descendantsOf maps the processes below pid to their command names.
func descendantsOf(pid int) map[int]string {
	parent := map[int]int{}
	name := map[int]string{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		p, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(s[j+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[p], name[p] = pp, s[i+1:j]
	}
	out := map[int]string{}
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				if _, seen := out[c]; !seen {
					out[c] = name[c]
					walk(c)
				}
			}
		}
	}
	walk(pid)
	return out
}
