// Package vm boots a real node in QEMU: Debian with systemd as PID 1, cgroup
// v2, the machine-config-daemon as a service, the rpm-ostree double's
// transaction daemon as rpm-ostreed.service, real reboots and power losses
// (a QEMU system_reset with cache=none, which loses the guest's page cache).
// The image is built from Debian packages with mmdebstrap and cached, with
// the downloaded .debs, under ~/.cache/tandem/vm (see Image).
package vm

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

//go:embed guest
var guestFiles embed.FS

// Suite is the Debian release the node runs.
const Suite = "bookworm"

// Packages are what the node image holds beyond minbase: systemd as PID 1
// with D-Bus and udev, the Debian kernel (its initrd made small by
// guest/pre), the QEMU guest agent through which the host runs commands,
// and a few tools for a person on the console (make vm-shell).
var Packages = []string{
	"systemd", "systemd-sysv", "dbus", "udev", "kmod",
	"linux-image-amd64", "initramfs-tools", "e2fsprogs",
	"qemu-guest-agent", "iproute2", "procps", "less",
}

// imageFormat changes whenever the build below changes in a way the other
// inputs do not show.
const imageFormat = "tandem-vm-image-1"

// rootfsSize is the node disk's size (a sparse file): room for the double's
// sysroot with a few OS images and etcd's data.
const rootfsSize = 4 << 30

// Image is a built node image: a kernel, its initrd and a raw ext4 root
// file system that every VM boots a copy-on-write overlay of.
type Image struct {
	Dir    string
	Kernel string
	Initrd string
	Rootfs string
	// Built is true when this call built it (false: cached).
	Built    bool
	Duration time.Duration
}

// CacheDir is where images and packages are kept: $TANDEM_VM_CACHE or
// ~/.cache/tandem/vm.
func CacheDir() (string, error) {
	if d := os.Getenv("TANDEM_VM_CACHE"); d != "" {
		return d, nil
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no cache dir: %w", err)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "tandem", "vm"), nil
}

// aptSources is the host's apt sources file, pasted into the image's
// sources (mmdebstrap's MIRROR may be a file): the image comes from the
// same mirror the host uses, and no mirror is named here.
func aptSources() (string, error) {
	if p := os.Getenv("TANDEM_VM_APT_SOURCES"); p != "" {
		return p, nil
	}
	for _, p := range []string{"/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"} {
		if st, err := os.Stat(p); err == nil && st.Size() > 0 {
			return p, nil
		}
	}
	return "", errors.New("no apt sources found (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list); set TANDEM_VM_APT_SOURCES")
}

// keyOf hashes the inputs of a cached thing into a short name.
func keyOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d\n", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// guestDigest is the content of every embedded guest file, in order.
func guestDigest() ([]byte, error) {
	var out []byte
	var paths []string
	err := fs.WalkDir(guestFiles, "guest", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := guestFiles.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, []byte(p+"\n")...)
		out = append(out, b...)
	}
	return out, nil
}

// EnsureImage returns the cached node image, building it first when its
// inputs changed. A build downloads packages only once: the .debs and the
// package lists are kept beside the images (debs-<key>), and a later build
// with the same packages reuses them without any mirror. Progress goes to
// log.
func EnsureImage(ctx context.Context, log io.Writer) (*Image, error) {
	root, err := CacheDir()
	if err != nil {
		return nil, err
	}
	sources, err := aptSources()
	if err != nil {
		return nil, err
	}
	srcBytes, err := os.ReadFile(sources)
	if err != nil {
		return nil, fmt.Errorf("reading apt sources: %w", err)
	}
	guest, err := guestDigest()
	if err != nil {
		return nil, fmt.Errorf("reading guest files: %w", err)
	}
	pkgs := []byte(strings.Join(Packages, ","))
	debsDir := filepath.Join(root, "debs-"+keyOf([]byte(Suite), pkgs, srcBytes))
	dir := filepath.Join(root, "image-"+keyOf([]byte(imageFormat), []byte(Suite), pkgs, srcBytes, guest))
	img := &Image{Dir: dir, Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img"), Rootfs: filepath.Join(dir, "rootfs.raw")}
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return img, nil
	}
	for _, tool := range []string{"mmdebstrap", "mkfs.ext4"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("building the VM image needs %s (Debian packages mmdebstrap, e2fsprogs; `make vm-deps` installs them): %w", tool, err)
		}
	}
	start := time.Now()
	if err := build(ctx, log, root, dir, debsDir, sources); err != nil {
		return nil, err
	}
	img.Built, img.Duration = true, time.Since(start)
	return img, nil
}

// build makes the image in a temporary directory and renames it into place
// when complete, so an interrupted build is never taken for a cached one.
func build(ctx context.Context, log io.Writer, root, dir, debsDir, sources string) (retErr error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(root, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	// The guest files as plain files, for the hooks' cp.
	if err := os.CopyFS(filepath.Join(work, "files"), guestFiles); err != nil {
		return fmt.Errorf("extracting guest files: %w", err)
	}
	files := filepath.Join(work, "files", "guest")
	archives, lists := filepath.Join(debsDir, "archives"), filepath.Join(debsDir, "lists")
	offline := fileExists(filepath.Join(debsDir, "complete"))
	for _, d := range []string{archives, lists} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	chroot := filepath.Join(work, "root")
	args := []string{
		"--variant=minbase", "--mode=root", "--include=" + strings.Join(Packages, ","),
		// Keep every .deb in the chroot's cache so it can be copied out, and
		// accept the copied-in ones.
		"--skip=essential/unlink,download/empty",
		"--setup-hook=cp -a " + q(filepath.Join(files, "pre")) + `/. "$1"/`,
		"--setup-hook=mkdir -p \"$1\"/var/cache/apt/archives \"$1\"/var/lib/apt/lists && cp -a " + q(archives) + `/. "$1"/var/cache/apt/archives/`,
		"--customize-hook=cp -a \"$1\"/var/cache/apt/archives/*.deb " + q(archives) + "/",
		"--customize-hook=cp -a " + q(filepath.Join(files, "etc")) + `/. "$1"/etc/`,
		"--customize-hook=" + customize,
	}
	if offline {
		// The package lists of the first build: no mirror is contacted.
		args = append(args, "--skip=update",
			"--setup-hook=cp -a "+q(lists)+`/. "$1"/var/lib/apt/lists/`)
		fmt.Fprintf(log, "vm-image: building from the kept packages in %s (no mirror)\n", debsDir)
	} else {
		args = append(args, "--customize-hook=cp -a \"$1\"/var/lib/apt/lists/. "+q(lists)+"/")
		fmt.Fprintf(log, "vm-image: building from the mirror in %s (packages kept in %s)\n", sources, debsDir)
	}
	args = append(args, Suite, chroot, sources)
	logPath := filepath.Join(root, "build.log")
	lf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer lf.Close()
	cmd := exec.CommandContext(ctx, "mmdebstrap", args...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C.UTF-8")
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mmdebstrap failed (log %s): %w\n%s", logPath, err, tail(logPath, 20))
	}
	fmt.Fprintf(log, "vm-image: mmdebstrap done in %s\n", time.Since(t0).Round(time.Second))
	if !offline {
		if err := os.WriteFile(filepath.Join(debsDir, "complete"), nil, 0o644); err != nil {
			return err
		}
	}
	out := filepath.Join(work, "image")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, glob := range map[string]string{"vmlinuz": "vmlinuz-*", "initrd.img": "initrd.img-*"} {
		m, _ := filepath.Glob(filepath.Join(chroot, "boot", glob))
		if len(m) != 1 {
			return fmt.Errorf("want one %s in the image's /boot, found %v", glob, m)
		}
		if err := copyFile(m[0], filepath.Join(out, name)); err != nil {
			return err
		}
	}
	rootfs := filepath.Join(out, "rootfs.raw")
	if err := os.WriteFile(rootfs, nil, 0o644); err != nil {
		return err
	}
	if err := os.Truncate(rootfs, rootfsSize); err != nil {
		return err
	}
	mkfs := exec.CommandContext(ctx, "mkfs.ext4", "-q", "-F", "-L", "root", "-d", chroot, rootfs)
	if b, err := mkfs.CombinedOutput(); err != nil {
		return fmt.Errorf("mkfs.ext4 -d: %w\n%s", err, b)
	}
	if err := os.WriteFile(filepath.Join(out, "complete"), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return err
	}
	_ = os.RemoveAll(dir) // an incomplete one
	if err := os.Rename(out, dir); err != nil {
		return fmt.Errorf("placing the image: %w", err)
	}
	fmt.Fprintf(log, "vm-image: image ready in %s\n", dir)
	pruneImages(log, root, keepImages)
	return nil
}

// keepImages is how many built images the cache keeps (each is a sparse
// 4 GiB file of about 750 MB); the kept .debs are never pruned.
const keepImages = 3

// pruneImages removes all but the newest keep images.
func pruneImages(log io.Writer, root string, keep int) {
	dirs, _ := filepath.Glob(filepath.Join(root, "image-*"))
	type built struct {
		dir string
		at  time.Time
	}
	var imgs []built
	for _, d := range dirs {
		if st, err := os.Stat(filepath.Join(d, "complete")); err == nil {
			imgs = append(imgs, built{d, st.ModTime()})
		}
	}
	sort.Slice(imgs, func(i, j int) bool { return imgs[i].at.After(imgs[j].at) })
	for i := keep; i < len(imgs); i++ {
		if err := os.RemoveAll(imgs[i].dir); err == nil {
			fmt.Fprintf(log, "vm-image: pruned the old image %s\n", imgs[i].dir)
		}
	}
}

// customize runs in the finished chroot: units on, root without a password
// on the console, the mount points and the persistent journal (it keeps each
// boot's log across a power loss, up to what was synced).
const customize = `set -e
chroot "$1" systemctl enable systemd-networkd.service machine-config-daemon.service rpm-ostreed.service kubelet.service \
	ostree-finalize-staged.path tandem-osdouble-reboot.path tandem-node-install.service
chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
	e2scrub_reap.service getty@tty1.service 2>/dev/null || true
chroot "$1" passwd -d root
mkdir -p "$1"/opt/tandem "$1"/var/lib/tandem-xchg "$1"/sysroot "$1"/var/lib/etcd "$1"/var/log/journal
`

func q(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
