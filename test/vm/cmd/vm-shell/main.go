// Command vm-shell boots one VM node (test/vm) and puts its serial console
// on the terminal, logged in as root: make vm-shell. Ctrl-A X quits QEMU.
// With -check it boots without a console instead, reboots and power-cycles
// the node once, and prints what each took (a smoke test of the VM).
// docs/vm-node.md tells how to use it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/tandem-mco/tandem/test/vm"
)

func main() {
	check := flag.Bool("check", false, "boot, reboot and power-cycle without a console, print the timings")
	dir := flag.String("dir", "", "directory for the VM (default: a new temporary one, kept)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *check, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "vm-shell:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, check bool, dir string) error {
	img, err := vm.EnsureImage(ctx, os.Stderr)
	if err != nil {
		return err
	}
	accel, err := vm.DetectAccel(ctx, img, os.Stderr)
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "tandem-vm-shell-"); err != nil {
			return err
		}
	}
	bin := filepath.Join(dir, "bin")
	if err := vm.BuildBinaries(ctx, bin); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "vm-shell: node in %s (serial log vm/serial.log), accel=%s\n", dir, accel)
	n, err := vm.StartNode(ctx, vm.NodeOptions{Image: img, Accel: accel, Dir: dir, Bin: bin, NodeName: "vm-node", Console: !check})
	if err != nil {
		return err
	}
	defer n.Stop()
	if !check {
		fmt.Fprintln(os.Stderr, "vm-shell: console below; Ctrl-A X quits")
		return n.Wait()
	}
	t0 := time.Now()
	if _, err := n.WaitBooted(ctx, 5*time.Minute); err != nil {
		return err
	}
	fmt.Printf("vm-shell: booted in %s\n", time.Since(t0).Round(100*time.Millisecond))
	out, _ := n.Sh(ctx, time.Minute, "uname -r; cat /sys/fs/cgroup/cgroup.controllers; systemctl --failed --no-legend; systemd-analyze | head -1; ls /opt/tandem/bin")
	fmt.Print(out)
	t0 = time.Now()
	if _, err := n.Exec(ctx, 10*time.Second, "/bin/systemctl", "--no-block", "reboot"); err != nil {
		return err
	}
	if _, err := n.WaitBooted(ctx, 5*time.Minute); err != nil {
		return err
	}
	fmt.Printf("vm-shell: rebooted in %s\n", time.Since(t0).Round(100*time.Millisecond))
	t0 = time.Now()
	if err := n.PowerLoss(ctx); err != nil {
		return err
	}
	if _, err := n.WaitBooted(ctx, 5*time.Minute); err != nil {
		return err
	}
	fmt.Printf("vm-shell: power-cycled in %s; boots %d\n", time.Since(t0).Round(100*time.Millisecond), len(n.Boots()))
	// Where a boot's time goes under this accelerator: what to cut first.
	out, _ = n.Sh(ctx, time.Minute, "systemd-analyze; systemd-analyze blame --no-pager | head -12; systemd-analyze critical-chain --no-pager multi-user.target")
	fmt.Print(out)
	return nil
}
