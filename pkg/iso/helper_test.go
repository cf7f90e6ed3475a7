package iso

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The test binary doubles as a child process: a threaded program like the
// staging process, which creates threads before and after its parent set
// its I/O class, and writes files on request.
func TestMain(m *testing.M) {
	switch os.Getenv("ISO_TEST_CHILD") {
	case "threads":
		childThreads()
		return
	case "write":
		childWrite(os.Getenv("ISO_TEST_FILE"), os.Getenv("ISO_TEST_SYNC") == "1")
		return
	case "stage":
		childStage()
		return
	}
	// A run that crashed (or was killed) before its cleanups left knobs
	// and loop devices behind: put them back before testing anything.
	if err := restoreTestLeftovers(); err != nil {
		fmt.Fprintln(os.Stderr, "restoring what an earlier test run left:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// childThreads pins 4 threads, says "ready", and on each line read from
// stdin pins 4 more and answers "more". It exits at EOF.
func childThreads() {
	var wg sync.WaitGroup
	block := make(chan struct{})
	spawn := func(n int) {
		for i := 0; i < n; i++ {
			started := make(chan struct{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread() // a new OS thread stays dedicated to this goroutine
				close(started)
				<-block
			}()
			<-started
		}
	}
	spawn(4)
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		spawn(4)
		fmt.Println("more")
	}
	close(block)
	wg.Wait()
}

// childWrite waits for a line on stdin, writes 8 MiB to file, with an
// fsync or without, then waits for EOF on stdin so the parent can read its
// cgroup's statistics.
func childWrite(file string, sync bool) {
	in := bufio.NewScanner(os.Stdin)
	fmt.Println("ready")
	in.Scan()
	f, err := os.Create(file)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i*7 + 1)
	}
	for i := 0; i < 8; i++ {
		if _, err := f.Write(buf); err != nil {
			fmt.Println("error", err)
			return
		}
	}
	if sync {
		if err := f.Sync(); err != nil {
			fmt.Println("error", err)
			return
		}
	}
	f.Close()
	fmt.Println("written")
	for in.Scan() {
	}
}

// child is a running helper process with line-based stdin/stdout.
type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startChild(t *testing.T, mode string, env []string, hook func(*exec.Cmd) (func(int) error, error)) *child {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "ISO_TEST_CHILD="+mode), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var after func(int) error
	if hook != nil {
		if after, err = hook(cmd); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	t.Cleanup(func() {
		c.in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	if after != nil {
		if err := after(cmd.Process.Pid); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func (c *child) expect(t *testing.T, want string) {
	t.Helper()
	if !c.out.Scan() {
		t.Fatalf("child ended before %q: %v", want, c.out.Err())
	}
	if got := strings.TrimSpace(c.out.Text()); got != want {
		t.Fatalf("child said %q, want %q", got, want)
	}
}

func (c *child) say(t *testing.T, line string) {
	t.Helper()
	if _, err := fmt.Fprintln(c.in, line); err != nil {
		t.Fatal(err)
	}
}

// childStage prepares the policy $ISO_TEST_POLICY with the options in
// $ISO_TEST_OPTIONS (JSON), says "prepared", and waits to be killed: a
// daemon that dies in the middle of a stage.
func childStage() {
	var o stageChildOptions
	if err := json.Unmarshal([]byte(os.Getenv("ISO_TEST_OPTIONS")), &o); err != nil {
		fmt.Println("error", err)
		return
	}
	p, err := ParsePolicy(os.Getenv("ISO_TEST_POLICY"), o.options())
	if err != nil {
		fmt.Println("error", err)
		return
	}
	s, err := p.Prepare(context.Background())
	if err != nil {
		fmt.Println("error", err)
		return
	}
	if o.TargetPID != 0 {
		if _, err := s.ApplyToProcess(o.TargetPID); err != nil {
			fmt.Println("error", err)
			return
		}
	}
	fmt.Println("prepared")
	select {}
}

// stageChildOptions are the Options a stage child needs, as JSON.
type stageChildOptions struct {
	Sysroot       string
	StateDir      string
	Device        BlockDevice
	WBTLatency    time.Duration
	RequestSizeKB uint64
	DirtyLimit    uint64
	// TargetPID, when set, gets the policy's process knobs (ApplyToProcess).
	TargetPID  int
	CgroupName string
}

func (c stageChildOptions) options() Options {
	o := Options{Sysroot: c.Sysroot, StateDir: c.StateDir, WBTLatency: c.WBTLatency,
		RequestSizeKB: c.RequestSizeKB, DirtyLimit: c.DirtyLimit, CgroupParent: "tandem-test", CgroupName: c.CgroupName}
	if c.Device.Name != "" {
		o.Device = &c.Device
	}
	return o
}
