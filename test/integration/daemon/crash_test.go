//go:build integration

package daemon_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestDaemonCrash crashes the daemon at every kind of step it takes. Each
// script (crash_scripts_test.go) is one way a node moves: an update with an
// OS change, a kernel-argument-only update, a files-only update, a reboot
// request, a rollback, a withdrawn stage, bad and missing configs. A script
// runs once cleanly to learn the daemon's steps (the hook points it
// reaches, in order), then once per crash point it picks and per crash
// kind: the daemon is held right at that point and either killed with
// SIGKILL (and restarted) or the node loses power (no finalization, /run
// wiped). After each, the script's end state must hold (its oracle:
// files, booted OS, kernel arguments, annotations), and no OS may have
// booted that was not granted.
//
// Each node's root, sysroot and /run are file systems with their own page
// cache (test/pagecachefs): a kill -9 keeps what the daemon and the
// rpm-ostree double wrote and never synced; a power loss drops it, as a
// real one does. Crash points fall inside the durable writes too: each
// file of an update held after its write and before its fsync
// (WriteFiles.written, one occurrence per path), and after its rename and
// before the directory's fsync (WriteFiles.renamed). Right after every
// power loss, before the daemon runs again, each config file must be one
// config's whole version (judgeWhole); at the end, the node must hold the
// end config's files exactly (judgeFiles). Both oracles read the
// MachineConfigs' Ignition, not the daemon's files.Plan.
//
// The daemon's action kinds are read from pkg/daemon's source (every
// constant of type ActionKind), not listed here: a kind that no scenario
// crashes both ways fails the test, so a new kind must come with a script.
func TestDaemonCrash(t *testing.T) {
	kinds := actionKinds(t)
	w := newWorld(t)
	w.standardConfigs()
	w.crashConfigs()
	crashes := []string{"kill", "power-loss"}
	covered := map[string]map[string]bool{} // action kind -> crash kinds
	scenarios, passed, filtered := 0, 0, 0
	only := os.Getenv("TANDEM_CRASH_SCRIPTS") // comma-separated script names; empty: all
	for _, sc := range crashScripts() {
		if only != "" && !slices.Contains(strings.Split(only, ","), sc.name) {
			continue
		}
		clean := w.runCrashScript(t, sc, sc.name+"-clean", nil)
		if len(clean) == 0 {
			t.Fatalf("script %s: the clean run reached no step", sc.name)
		}
		t.Logf("script %s: steps (%d): %v", sc.name, len(clean), clean)
		points := crashPointsOf(clean, sc)
		for _, kind := range crashes {
			for i, p := range points {
				name := fmt.Sprintf("%s/%s-%02d-%s", sc.name, kind, i, p.point)
				// t.Run reports a scenario that -run filtered out as
				// passed: count only those that ran.
				ran := false
				ok := t.Run(name, func(t *testing.T) {
					ran = true
					w.runCrashScript(t, sc, fmt.Sprintf("%s-%s-%d", sc.name, kind, i), &crashAt{crashPoint: p, kind: kind})
				})
				if !ran {
					filtered++
					continue
				}
				scenarios++
				if ok {
					passed++
				}
				ak, _, _ := strings.Cut(p.point, ".")
				if covered[ak] == nil {
					covered[ak] = map[string]bool{}
				}
				covered[ak][kind] = true
			}
		}
	}
	var missing []string
	n := 0
	for _, k := range kinds {
		if covered[k]["kill"] && covered[k]["power-loss"] {
			n++
		} else {
			missing = append(missing, fmt.Sprintf("%s (kill=%v power-loss=%v)", k, covered[k]["kill"], covered[k]["power-loss"]))
		}
	}
	pc := w.pageCache.get()
	narrowed := ""
	if only != "" {
		narrowed = " narrowed=" + only
	}
	if filtered > 0 {
		if only == "" {
			narrowed = " narrowed=-run"
		}
		narrowed += fmt.Sprintf(" filtered_out=%d", filtered)
	}
	fmt.Printf("daemon-crash: actions=%d covered=%d scenarios=%d passed=%d power_losses=%d unsynced_dropped_bytes=%d%s\n",
		len(kinds), n, scenarios, passed, pc.PowerLosses, pc.UnsyncedDroppedBytes, narrowed)
	if only != "" || filtered > 0 {
		t.Logf("narrowed (TANDEM_CRASH_SCRIPTS=%q, %d scenarios filtered out by -run): the coverage of every action kind and the page-cache figures are not judged", only, filtered)
	} else {
		if pc.PowerLosses < len(kinds) {
			t.Errorf("%d power losses dropped a page cache, fewer than the %d action kinds", pc.PowerLosses, len(kinds))
		}
		if pc.UnsyncedDroppedBytes == 0 {
			t.Errorf("no power loss dropped an unsynced byte: the page cache drops nothing the suite could miss")
		}
	}
	if only == "" && filtered == 0 && len(missing) > 0 {
		t.Errorf("action kinds no scenario crashes with both kill -9 and power loss: %s; add a script to crash_scripts_test.go", strings.Join(missing, ", "))
	}
	if passed != scenarios {
		t.Errorf("%d of %d crash scenarios failed", scenarios-passed, scenarios)
	}
}

// actionKinds reads every constant of type ActionKind declared in
// pkg/daemon's source files, as their string values.
func actionKinds(t *testing.T) []string {
	t.Helper()
	// go test runs in the package's directory; builds use -trimpath, so
	// runtime.Caller would not name a file on disk.
	dir := filepath.Join("..", "..", "..", "pkg", "daemon")
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatalf("parsing %s: %v", dir, err)
	}
	var kinds []string
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ActionKind" {
						continue
					}
					for _, v := range vs.Values {
						lit, ok := v.(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							t.Fatalf("%s: ActionKind constant with a non-literal value", fset.Position(v.Pos()))
						}
						s, _ := strconv.Unquote(lit.Value)
						kinds = append(kinds, s)
					}
				}
			}
		}
	}
	sort.Strings(kinds)
	if len(kinds) < 10 || !slices.Contains(kinds, string(daemon.ActFinalize)) {
		t.Fatalf("found only ActionKinds %v in %s", kinds, dir)
	}
	return kinds
}

// crashPoint is the occurrence-th (1-based, over the node's life) time the
// daemon reaches point.
type crashPoint struct {
	point      string
	occurrence int
}

type crashAt struct {
	crashPoint
	kind string // "kill" or "power-loss"
}

// stageMid is the crash point in the middle of the OS pull: the registry
// holds the second layer's download, so the first one is written.
const stageMid = "Stage.mid"

// crashPointsOf lists the crash points of a script's clean run: each step's
// occurrences, restricted to the script's points when it names some.
func crashPointsOf(steps []string, sc crashScript) []crashPoint {
	seen := map[string]int{}
	var out []crashPoint
	for _, p := range steps {
		seen[p]++
		if p == string(daemon.ActWait) && seen[p] > 1 {
			// Later waits depend on timing (a grant may come before the
			// daemon looks); the first one, at start, does not.
			continue
		}
		if sc.points == nil || slices.Contains(sc.points, p) {
			out = append(out, crashPoint{p, seen[p]})
		}
	}
	for _, p := range sc.extra {
		out = append(out, crashPoint{p, 1})
	}
	return out
}

// crashRun is one run of a script on a fresh node.
type crashRun struct {
	t  *testing.T
	w  *world
	sn *framework.SimNode

	mu       sync.Mutex
	allowed  map[string]bool // images a boot may bring up
	granted  []string        // configs granted so far, in order
	bootErrs []string
	pending  []chan error // one per armed crash: nil once it happened
	stop     chan struct{}
}

// grant sets desiredConfig, and allows the config's image to boot from now on.
func (r *crashRun) grant(cfg, image string) {
	r.mu.Lock()
	r.allowed[image] = true
	r.granted = append(r.granted, cfg)
	r.mu.Unlock()
	r.w.annotate(r.sn.Name, map[string]string{"machineconfiguration.openshift.io/desiredConfig": cfg})
}

func (r *crashRun) onBoot(ev framework.BootEvent) {
	img := daemon.NormalizeImage(ev.Booted.Origin)
	r.mu.Lock()
	defer r.mu.Unlock()
	// The configs in play: the install config, those the script granted,
	// and the one the drainer granted on the script's behalf.
	inPlay := append([]string{cfgA}, r.granted...)
	if r.sn != nil {
		if g := r.w.drainer.eventsOf(r.sn.Name); !g.GrantedAt.IsZero() {
			r.allowed[r.w.imageOf[g.GrantedFor]] = true
			inPlay = append(inPlay, g.GrantedFor)
		}
	}
	if !r.allowed[img] {
		r.bootErrs = append(r.bootErrs, fmt.Sprintf("%s boot into %s, which was not granted", ev.Cause, img))
	}
	if ev.Cause == "power-loss" && r.sn != nil {
		// Right after the power loss, before the daemon runs again.
		var cfgs []*ign3types.Config
		slices.Sort(inPlay)
		for _, name := range slices.Compact(inPlay) {
			cfgs = append(cfgs, ptr(r.w.cfgs[name]))
		}
		for _, bad := range judgeWhole(r.sn.Root, cfgs) {
			r.bootErrs = append(r.bootErrs, "right after the power loss: "+bad)
		}
	}
}

// arm holds the daemon at c and crashes it there when it arrives.
func (r *crashRun) arm(c crashAt) {
	var held <-chan struct{}
	release := func() {}
	if c.point == stageMid {
		held, release = r.w.registry.HoldBlobGet(2) // config, first layer; hold the second
	} else {
		held = r.sn.HoldAt(c.point, c.occurrence)
	}
	done := make(chan error, 1)
	r.pending = append(r.pending, done)
	go func() {
		defer release()
		select {
		case <-held:
		case <-r.stop:
			done <- fmt.Errorf("the daemon never reached %s #%d (steps %v)", c.point, c.occurrence, r.sn.Steps())
			return
		}
		if c.kind == "kill" {
			done <- r.sn.KillDaemon()
		} else {
			done <- r.sn.PowerCycle()
		}
	}()
}

// runCrashScript runs sc on a new node, crashing it at c (nil: a clean run),
// and returns the steps the daemon took.
func (w *world) runCrashScript(t *testing.T, sc crashScript, nodeName string, c *crashAt) []string {
	t.Helper()
	w = w.in(t)
	r := &crashRun{t: t, w: w, allowed: map[string]bool{w.imageA: true}, stop: make(chan struct{})}
	sn := w.installNode(nodeName, cfgA, w.cfgs[cfgA], w.imageA, framework.SimNodeOptions{Hooked: true, OnBoot: r.onBoot, PageCache: true})
	r.mu.Lock()
	r.sn = sn
	r.mu.Unlock()
	defer func() {
		w.pageCache.add(sn.PageCacheStats())
		if err := sn.Stop(); err != nil {
			t.Errorf("stopping node %s: %v", sn.Name, err)
		}
	}()
	for _, pre := range sc.prelude {
		r.arm(crashAt{crashPoint: pre, kind: "kill"})
	}
	if c != nil {
		r.arm(*c)
	}
	// Every run starts from an idle daemon (its first Wait, after the
	// validation at start), so the first Wait is the same in every run.
	idle := 1
	if c != nil && c.point == string(daemon.ActWait) {
		idle = 2 // the held one, and the one after the crash
	}
	waitSteps(t, sn, string(daemon.ActWait), idle)
	sc.drive(t, r)
	close(r.stop)
	for _, done := range r.pending {
		if err := <-done; err != nil {
			t.Errorf("crash: %v", err)
		}
	}
	r.mu.Lock()
	for _, e := range r.bootErrs {
		t.Error(e)
	}
	r.mu.Unlock()
	if ev := w.drainer.eventsOf(sn.Name); len(ev.Cordons) > 0 && !ev.GrantedAt.IsZero() && ev.Cordons[0].Before(ev.GrantedAt) {
		t.Errorf("cordoned before the grant: %+v", ev)
	}
	if t.Failed() || os.Getenv("TANDEM_TEST_DAEMON_LOG") != "" {
		t.Logf("daemon log of %s:\n%s", sn.Name, sn.DaemonLog())
	}
	if err := sn.Err(); err != nil {
		t.Errorf("node harness: %v", err)
	}
	return sn.Steps()
}

// waitSteps waits until the daemon reached point n times.
func waitSteps(t *testing.T, sn *framework.SimNode, point string, n int) {
	t.Helper()
	deadline := time.Now().Add(updateTimeout)
	for {
		steps := sn.Steps()
		c := 0
		for _, s := range steps {
			if s == point {
				c++
			}
		}
		if c >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s: the daemon reached %s %d times, want %d; steps %v\n%s", sn.Name, point, c, n, steps, sn.DaemonLogTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
