package framework

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The reaper makes every process a test (or `make run`) starts die with it,
// even after kill -9 of the test binary, when Pdeathsig cannot help: envtest
// starts kube-apiserver and etcd without it, and Pdeathsig fires when the
// forking thread exits, not the process. The first process the framework
// starts also starts the reaper: the same executable again, in its own
// process group (Ctrl-C in a terminal does not reach it), reading a pipe
// from its parent. It records the parent's descendants (told through the
// pipe, and found in /proc every reapScan) with their start times; when the
// pipe closes (the parent exited or was killed), it SIGKILLs each recorded
// process group that still runs the same process, lazily unmounts each
// mount it was told of (a FUSE mount whose server died with the test would
// otherwise stay, answering ENOTCONN), and exits.

// envReaperParent, when set, makes this executable the reaper of that pid.
const envReaperParent = "TANDEM_FRAMEWORK_REAPER_FOR"

const reapScan = 250 * time.Millisecond

func init() {
	if p := os.Getenv(envReaperParent); p != "" {
		parent, err := strconv.Atoi(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tandem reaper: bad %s=%q\n", envReaperParent, p)
			os.Exit(2)
		}
		runReaper(parent, os.Stdin)
		os.Exit(0)
	}
}

var reaper struct {
	once sync.Once
	mu   sync.Mutex
	w    *os.File
	err  error
}

// Track hands a child to the reaper: if this process dies without stopping
// it, the child's process group is killed. Processes the framework starts
// are tracked already; use it for processes started elsewhere.
func Track(pid int) { reaperSend("track", pid) }

// Untrack tells the reaper a child was stopped.
func Untrack(pid int) { reaperSend("untrack", pid) }

// TrackMount hands a mount point to the reaper: if this process dies
// without unmounting it, the reaper unmounts it (lazily: MNT_DETACH). Call
// it before mounting, so no moment is left unguarded.
func TrackMount(path string) { reaperSendLine("mount " + path) }

// UntrackMount tells the reaper a mount point was unmounted.
func UntrackMount(path string) { reaperSendLine("unmount " + path) }

// TrackChildren tracks every current child of this process (envtest's
// kube-apiserver and etcd, which are started where Track cannot be called).
func TrackChildren() {
	self := os.Getpid()
	for pid, ppid := range processParents() {
		if ppid == self {
			Track(pid)
		}
	}
}

func reaperSend(verb string, pid int) { reaperSendLine(fmt.Sprintf("%s %d", verb, pid)) }

func reaperSendLine(line string) {
	startReaper()
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if reaper.w != nil {
		_, _ = fmt.Fprintln(reaper.w, line)
	}
}

func startReaper() {
	reaper.once.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			reaper.err = err
			return
		}
		r, w, err := os.Pipe()
		if err != nil {
			reaper.err = err
			return
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), envReaperParent+"="+strconv.Itoa(os.Getpid()))
		cmd.Stdin, cmd.Stdout, cmd.Stderr = r, nil, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			_ = r.Close()
			_ = w.Close()
			reaper.err = fmt.Errorf("starting the process reaper: %w", err)
			fmt.Fprintln(os.Stderr, "tandem framework:", reaper.err)
			return
		}
		_ = r.Close()
		// It outlives this process on purpose; nothing waits for it.
		go func() { _ = cmd.Wait() }()
		reaper.w = w
	})
}

// runReaper is the reaper's main loop.
func runReaper(parent int, in *os.File) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	tracked := newReapSet(os.Getpid())
	mounts := map[string]bool{}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	t := time.NewTicker(reapScan)
	defer t.Stop()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				tracked.reap()
				unmountAll(mounts)
				return
			}
			verb, p, _ := strings.Cut(l, " ")
			switch verb {
			case "mount":
				mounts[p] = true
				continue
			case "unmount":
				delete(mounts, p)
				continue
			}
			pid, err := strconv.Atoi(p)
			if err != nil {
				continue
			}
			if verb == "track" {
				tracked.add(pid)
			} else {
				delete(tracked.started, pid)
			}
		case <-t.C:
			for _, pid := range descendants(parent) {
				tracked.add(pid)
			}
			tracked.forgetExited()
		}
	}
}

// reapSet is what the reaper will kill: pids with their start times (a pid
// may be reused once its process is gone).
type reapSet struct {
	// self is the reaper's own pid. The reaper is one of its parent's
	// descendants and leads its own process group, so tracking it would
	// make reap kill the reaper before whatever came later in the map's
	// random order (seen: a killed test's apiserver and etcd left running).
	self    int
	started map[int]uint64
}

func newReapSet(self int) *reapSet {
	return &reapSet{self: self, started: map[int]uint64{}}
}

func (s *reapSet) add(pid int) {
	if pid == s.self {
		return
	}
	if _, ok := s.started[pid]; ok {
		return
	}
	if st, ok := startTime(pid); ok {
		s.started[pid] = st
	}
}

// forgetExited drops the processes that are gone.
func (s *reapSet) forgetExited() {
	for pid, st := range s.started {
		if now, ok := startTime(pid); !ok || now != st {
			delete(s.started, pid)
		}
	}
}

// reap kills the process group (or the process) of every tracked process
// that still runs.
func (s *reapSet) reap() {
	var killed []string
	for pid, st := range s.started {
		if now, ok := startTime(pid); !ok || now != st {
			continue
		}
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
		killed = append(killed, strconv.Itoa(pid))
	}
	if len(killed) > 0 {
		fmt.Fprintf(os.Stderr, "tandem reaper: the test process is gone; killed leftover processes %s\n", strings.Join(killed, " "))
	}
}

// unmountAll lazily unmounts every mount point (after reap: nothing of the
// test uses them any more). Paths not mounted any more fail with EINVAL,
// which is fine.
func unmountAll(mounts map[string]bool) {
	var done []string
	for p := range mounts {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err == nil {
			done = append(done, p)
		}
	}
	if len(done) > 0 {
		fmt.Fprintf(os.Stderr, "tandem reaper: the test process is gone; unmounted %s\n", strings.Join(done, " "))
	}
}

// descendants lists the processes below parent.
func descendants(parent int) []int {
	children := map[int][]int{}
	for pid, ppid := range processParents() {
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	queue := []int{parent}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// processParents maps every pid to its parent pid, from /proc.
func processParents() map[int]int {
	out := map[int]int{}
	eachProcess(func(pid int, f []string) {
		if len(f) < 2 {
			return
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			out[pid] = ppid
		}
	})
	return out
}

// eachProcess calls fn with every process's pid and statFields.
func eachProcess(fn func(pid int, fields []string)) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if f, ok := statFields(pid); ok {
			fn(pid, f)
		}
	}
}

// startTime is field 22 of /proc/<pid>/stat, in clock ticks since boot.
func startTime(pid int) (uint64, bool) {
	f, ok := statFields(pid)
	if !ok || len(f) < 20 {
		return 0, false
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	return st, err == nil
}

// statFields returns /proc/<pid>/stat's fields after the command name, so
// fields[0] is the state (field 3).
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(s[i+1:]), true
}
