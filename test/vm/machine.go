package vm

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// GuestHostAddr is where the guest reaches the host's forwarded ports
// (guestfwd); the user-mode network's own gateway (10.0.2.2) leads nowhere,
// because restrict=on.
const GuestHostAddr = "10.0.2.100"

// GuestAddr is the guest's address on the user-mode network.
const GuestAddr = "10.0.2.15"

// Forward is one forwarded TCP port.
type Forward struct {
	// GuestPort is the port in the guest: at GuestHostAddr for a guestfwd,
	// the guest's own for a hostfwd.
	GuestPort int
	// HostAddr is "127.0.0.1:port" on the host.
	HostAddr string
}

// Config describes one VM.
type Config struct {
	Image *Image
	// Dir holds the VM's overlay disk, sockets and serial log.
	Dir string
	// Share is exported read-only as 9p tag "tandem" (/opt/tandem in the
	// guest): binaries and per-run settings. Xchg is exported read-write as
	// "xchg" (/var/lib/tandem-xchg).
	Share, Xchg string
	// Accel is "tcg" or "kvm" (see DetectAccel).
	Accel string
	// CPUs and MemoryMiB: 2 and 1536 when zero.
	CPUs, MemoryMiB int
	// GuestFwd are the host ports the guest may reach (and nothing else);
	// HostFwd the guest ports the host reaches.
	GuestFwd, HostFwd []Forward
	// Forwarder is the program QEMU runs for each guest connection of a
	// guestfwd, with the host address as argument (test/vm/cmd/vm-fwd).
	Forwarder string
	// Console puts the serial console on the terminal (make vm-shell)
	// instead of the serial log.
	Console bool
}

// Machine is a running QEMU.
type Machine struct {
	cfg        Config
	cmd        *exec.Cmd
	qmp        *qmp
	agent      *agent
	SerialLog  string
	exited     chan struct{}
	exitErr    error
	mu         sync.Mutex
	boots      []string // boot ids seen, in order
	powerLoss  int
	lastBootID string
}

// Start boots a VM from a fresh copy-on-write overlay of the image.
func Start(ctx context.Context, cfg Config) (_ *Machine, retErr error) {
	if cfg.CPUs == 0 {
		cfg.CPUs = 2
	}
	if cfg.MemoryMiB == 0 {
		cfg.MemoryMiB = 1536
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	disk := filepath.Join(cfg.Dir, "disk.qcow2")
	if _, err := os.Stat(disk); errors.Is(err, os.ErrNotExist) {
		out, err := exec.CommandContext(ctx, "qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", cfg.Image.Rootfs, disk).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("qemu-img create: %w\n%s", err, out)
		}
	}
	m := &Machine{cfg: cfg, SerialLog: filepath.Join(cfg.Dir, "serial.log"), exited: make(chan struct{})}
	qmpSock, qgaSock := filepath.Join(cfg.Dir, "qmp.sock"), filepath.Join(cfg.Dir, "qga.sock")
	_ = os.Remove(qmpSock)
	_ = os.Remove(qgaSock)
	args, err := m.qemuArgs(disk, qmpSock, qgaSock)
	if err != nil {
		return nil, err
	}
	m.cmd = exec.Command("qemu-system-x86_64", args...)
	qemuLog, err := os.OpenFile(filepath.Join(cfg.Dir, "qemu.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer qemuLog.Close()
	m.cmd.Stdout, m.cmd.Stderr = qemuLog, qemuLog
	// QEMU dies with the test, even after a kill -9 of the test binary.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if cfg.Console {
		m.cmd.Stdin, m.cmd.Stdout = os.Stdin, os.Stdout
	} else {
		m.cmd.SysProcAttr.Setpgid = true
	}
	if err := m.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting qemu: %w", err)
	}
	go func() {
		m.exitErr = m.cmd.Wait()
		close(m.exited)
	}()
	defer func() {
		if retErr != nil {
			m.Stop()
		}
	}()
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if m.qmp, err = dialQMP(dctx, qmpSock); err != nil {
		return nil, fmt.Errorf("%w (qemu log: %s)", err, tail(filepath.Join(cfg.Dir, "qemu.log"), 10))
	}
	m.agent = newAgent(qgaSock)
	return m, nil
}

func (m *Machine) qemuArgs(disk, qmpSock, qgaSock string) ([]string, error) {
	c := m.cfg
	// tb-size: QEMU 7.2's default translation cache (1 GiB) made every
	// boot after a reset (a reboot or a power loss) twice as slow as the
	// first, in the kernel and in user space alike; with 256 MiB a reset
	// boots as fast as a fresh QEMU (make vm-shell ARGS=-check, and
	// TANDEM_VM_TB_SIZE=1024 for the default, in docs/vm-node.md).
	tb, err := tbSizeMiB()
	if err != nil {
		return nil, err
	}
	accel := []string{"-accel", fmt.Sprintf("tcg,thread=multi,tb-size=%d", tb), "-cpu", "max"}
	if c.Accel == "kvm" {
		accel = []string{"-accel", "kvm", "-cpu", "host"}
	}
	netdev := "user,id=net0,restrict=on"
	for _, f := range c.GuestFwd {
		if strings.Contains(f.HostAddr, ",") || c.Forwarder == "" {
			return nil, fmt.Errorf("guestfwd to %q needs a forwarder and an address without commas", f.HostAddr)
		}
		netdev += fmt.Sprintf(",guestfwd=tcp:%s:%d-cmd:%s %s", GuestHostAddr, f.GuestPort, c.Forwarder, f.HostAddr)
	}
	for _, f := range c.HostFwd {
		host, port, ok := strings.Cut(f.HostAddr, ":")
		if !ok {
			return nil, fmt.Errorf("hostfwd address %q: want host:port", f.HostAddr)
		}
		netdev += fmt.Sprintf(",hostfwd=tcp:%s:%s-%s:%d", host, port, GuestAddr, f.GuestPort)
	}
	serial := []string{"-chardev", "file,id=ser0,path=" + m.SerialLog, "-serial", "chardev:ser0"}
	if c.Console {
		serial = []string{"-serial", "mon:stdio"}
	}
	args := append(accel,
		"-nodefaults", "-no-user-config", "-display", "none",
		"-smp", strconv.Itoa(c.CPUs), "-m", strconv.Itoa(c.MemoryMiB),
		"-kernel", c.Image.Kernel, "-initrd", c.Image.Initrd,
		"-append", "root=/dev/vda rw console=ttyS0 mitigations=off systemd.show_status=1",
		// cache=none: the guest's writes reach the host file directly, so a
		// system_reset loses exactly what the guest had not written: its
		// page cache.
		"-drive", "file="+disk+",if=virtio,format=qcow2,cache=none,aio=native,discard=unmap",
		"-netdev", netdev, "-device", "virtio-net-pci,netdev=net0",
		"-device", "virtio-rng-pci",
		"-virtfs", "local,path="+c.Share+",mount_tag=tandem,security_model=none,readonly=on",
		"-virtfs", "local,path="+c.Xchg+",mount_tag=xchg,security_model=none",
		"-chardev", "socket,id=qmp,path="+qmpSock+",server=on,wait=off", "-mon", "chardev=qmp,mode=control",
		"-chardev", "socket,id=qga0,path="+qgaSock+",server=on,wait=off",
		"-device", "virtio-serial-pci", "-device", "virtserialport,chardev=qga0,name=org.qemu.guest_agent.0",
	)
	return append(args, serial...), nil
}

// tbSizeMiB is TCG's translation cache size: $TANDEM_VM_TB_SIZE (MiB) or 256.
func tbSizeMiB() (int, error) {
	v := os.Getenv("TANDEM_VM_TB_SIZE")
	if v == "" {
		return 256, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("TANDEM_VM_TB_SIZE=%q: want a size in MiB", v)
	}
	return n, nil
}

// ExecResult is a command's outcome in the guest.
type ExecResult struct {
	Code           int
	Stdout, Stderr string
}

// Exec runs argv in the guest through the guest agent and waits for it,
// within timeout.
func (m *Machine) Exec(ctx context.Context, timeout time.Duration, argv ...string) (ExecResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var started struct {
		PID int `json:"pid"`
	}
	args := map[string]any{"path": argv[0], "arg": append([]string{}, argv[1:]...), "capture-output": true}
	if err := m.agent.call(ctx, timeout, "guest-exec", args, &started); err != nil {
		return ExecResult{}, err
	}
	for {
		var st struct {
			Exited   bool   `json:"exited"`
			ExitCode int    `json:"exitcode"`
			Signal   int    `json:"signal"`
			Out      string `json:"out-data"`
			Err      string `json:"err-data"`
		}
		if err := m.agent.call(ctx, timeout, "guest-exec-status", map[string]int{"pid": started.PID}, &st); err != nil {
			return ExecResult{}, err
		}
		if st.Exited {
			out, _ := base64.StdEncoding.DecodeString(st.Out)
			errb, _ := base64.StdEncoding.DecodeString(st.Err)
			code := st.ExitCode
			if st.Signal != 0 {
				code = 128 + st.Signal
			}
			return ExecResult{Code: code, Stdout: string(out), Stderr: string(errb)}, nil
		}
		select {
		case <-ctx.Done():
			return ExecResult{}, fmt.Errorf("%v in the guest: %w", argv, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Run is Exec that fails on a non-zero exit and returns stdout.
func (m *Machine) Run(ctx context.Context, timeout time.Duration, argv ...string) (string, error) {
	r, err := m.Exec(ctx, timeout, argv...)
	if err != nil {
		return "", err
	}
	if r.Code != 0 {
		return r.Stdout, fmt.Errorf("%s in the guest: exit %d: %s", strings.Join(argv, " "), r.Code, strings.TrimSpace(r.Stderr+" "+r.Stdout))
	}
	return r.Stdout, nil
}

// Sh runs a shell command line in the guest.
func (m *Machine) Sh(ctx context.Context, timeout time.Duration, script string) (string, error) {
	return m.Run(ctx, timeout, "/bin/sh", "-c", script)
}

// ReadFile reads a guest file.
func (m *Machine) ReadFile(ctx context.Context, path string) (string, error) {
	return m.Run(ctx, 30*time.Second, "/bin/cat", path)
}

// BootID reads the running boot's id (fails while the guest is down).
func (m *Machine) BootID(ctx context.Context) (string, error) {
	out, err := m.Run(ctx, 10*time.Second, "/bin/cat", "/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(out), err
}

// WaitBooted waits, up to bound, for a boot other than the last one seen
// to reach the end of its start-up (systemctl is-system-running --wait:
// "running", or "degraded" with the failed units named in the error), and
// records it.
func (m *Machine) WaitBooted(ctx context.Context, bound time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var last string
	for {
		select {
		case <-m.exited:
			return "", fmt.Errorf("qemu exited: %v (serial log %s:\n%s)", m.exitErr, m.SerialLog, tail(m.SerialLog, 15))
		default:
		}
		id, err := m.BootID(ctx)
		m.mu.Lock()
		prev := m.lastBootID
		m.mu.Unlock()
		if err == nil && id != prev {
			state, _ := m.Exec(ctx, bound, "/bin/systemctl", "is-system-running", "--wait")
			s := strings.TrimSpace(state.Stdout)
			if s == "running" || s == "degraded" {
				m.mu.Lock()
				m.lastBootID = id
				m.boots = append(m.boots, id)
				m.mu.Unlock()
				if s == "degraded" {
					failed, _ := m.Run(ctx, 30*time.Second, "/bin/systemctl", "--failed", "--no-legend", "--plain")
					return id, fmt.Errorf("boot %s is degraded: %s", id, strings.TrimSpace(failed))
				}
				return id, nil
			}
			last = "system state " + s
		} else if err != nil {
			last = err.Error()
		} else {
			last = "still boot " + id
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no new boot within %s (last: %s; serial log %s:\n%s)", bound, last, m.SerialLog, tail(m.SerialLog, 15))
		case <-time.After(time.Second):
		}
	}
}

// PowerLoss resets the machine as a power cut would: no shutdown runs and
// what the guest had not written to its disk (its page cache) is gone.
func (m *Machine) PowerLoss(ctx context.Context) error {
	if _, err := m.qmp.Execute(ctx, "system_reset", nil); err != nil {
		return err
	}
	m.mu.Lock()
	m.powerLoss++
	m.mu.Unlock()
	return nil
}

// Boots are the boot ids seen by WaitBooted, in order.
func (m *Machine) Boots() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.boots...)
}

// PowerLosses counts PowerLoss calls.
func (m *Machine) PowerLosses() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.powerLoss
}

// Events are the QMP events so far (RESET with "guest": true is a reboot
// the guest asked for).
func (m *Machine) Events() []Event { return m.qmp.Events() }

// Exited is closed when QEMU has exited.
func (m *Machine) Exited() <-chan struct{} { return m.exited }

// Wait waits for QEMU to exit (make vm-shell).
func (m *Machine) Wait() error {
	<-m.exited
	return m.exitErr
}

// Stop ends QEMU: quit over the monitor, then SIGKILL.
func (m *Machine) Stop() {
	if m.qmp != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = m.qmp.Execute(ctx, "quit", nil)
		cancel()
	}
	select {
	case <-m.exited:
	case <-time.After(10 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.exited
	}
	if m.qmp != nil {
		m.qmp.Close()
	}
	if m.agent != nil {
		m.agent.Close()
	}
}
