package osdouble

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-mco/tandem/test/pagecachefs"
)

// Object kinds, as ostree names its files.
const (
	kindFile   = "file"
	kindCommit = "commit"
)

// smallObject is the size up to which content is hashed in memory before it
// is written, so that an object already present costs no write at all.
const smallObject = 16 << 20

// repoConfig is the part of an ostree repo config the double obeys.
type repoConfig struct {
	perObjectFsync bool // core.per-object-fsync
	fsync          bool // core.fsync (default true)
}

// writeStats counts what a pull wrote.
type writeStats struct {
	ObjectsWritten int64
	ObjectsSkipped int64
	BytesWritten   int64
}

// repo is a content-addressed object store laid out like ostree's.
type repo struct {
	dir   string
	cfg   repoConfig
	stats writeStats
	// onWrite is called after each object written (for progress).
	onWrite func()
	buf     []byte
}

func initRepo(dir string) error {
	for i := 0; i < 256; i++ {
		if err := os.MkdirAll(filepath.Join(dir, "objects", fmt.Sprintf("%02x", i)), 0o755); err != nil {
			return err
		}
	}
	for _, d := range []string{"tmp", filepath.Join("refs", "images")} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	cfgPath := filepath.Join(dir, "config")
	if ok, err := exists(cfgPath); err != nil || ok {
		return err
	}
	return writeFileAtomic(cfgPath, []byte("[core]\nrepo_version=1\nmode=bare\n"), true)
}

func openRepo(dir string) (*repo, error) {
	cfg, err := readRepoConfig(filepath.Join(dir, "config"))
	if err != nil {
		return nil, err
	}
	return &repo{dir: dir, cfg: cfg}, nil
}

func readRepoConfig(path string) (repoConfig, error) {
	cfg := repoConfig{fsync: true}
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("reading repo config: %w", err)
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section != "core" {
			continue
		}
		on := strings.EqualFold(strings.TrimSpace(v), "true") || strings.TrimSpace(v) == "1"
		switch strings.TrimSpace(k) {
		case "per-object-fsync":
			cfg.perObjectFsync = on
		case "fsync":
			cfg.fsync = on
		}
	}
	return cfg, sc.Err()
}

// setCoreKey sets key=value in the [core] section of an ostree repo config,
// keeping everything else.
func setCoreKey(config []byte, key, value string) []byte {
	lines := strings.Split(strings.TrimRight(string(config), "\n"), "\n")
	var out []string
	section, done := "", false
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			if section == "core" && !done {
				out = append(out, key+"="+value)
				done = true
			}
			section = t[1 : len(t)-1]
		} else if section == "core" {
			if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
				if !done {
					out = append(out, key+"="+value)
					done = true
				}
				continue
			}
		}
		out = append(out, line)
	}
	if !done {
		if section != "core" {
			out = append(out, "[core]")
		}
		out = append(out, key+"="+value)
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// SetPerObjectFsync sets core.per-object-fsync in the node's ostree repo
// config: true makes the double fsync every object it writes (ostree's
// per-object-fsync), false makes it sync once at the end of a pull.
func SetPerObjectFsync(sysroot string, on bool) error {
	p := filepath.Join(layout{sysroot: sysroot}.repoDir(), "config")
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("set per-object-fsync: %w", err)
	}
	return writeFileAtomic(p, setCoreKey(b, "per-object-fsync", fmt.Sprint(on)), true)
}

// SetFsync sets core.fsync in the node's ostree repo config. false makes the
// double sync nothing at all (objects, commits, bootloader entries), as
// ostree's core.fsync=false does for its repo: for tests that check behaviour,
// not durability, on a disk shared with other work.
func SetFsync(sysroot string, on bool) error {
	p := filepath.Join(layout{sysroot: sysroot}.repoDir(), "config")
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("set fsync: %w", err)
	}
	return writeFileAtomic(p, setCoreKey(b, "fsync", fmt.Sprint(on)), true)
}

func (r *repo) objectPath(csum, kind string) string {
	return filepath.Join(r.dir, "objects", csum[:2], csum[2:]+"."+kind)
}

func (r *repo) hasObject(csum, kind string) (bool, error) {
	return exists(r.objectPath(csum, kind))
}

// cleanTmp removes objects left half-written by an interrupted pull.
func (r *repo) cleanTmp() error {
	tmp := filepath.Join(r.dir, "tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	return os.MkdirAll(tmp, 0o755)
}

// contentHash starts the checksum of a content object: like ostree's, it
// covers the file mode as well as the bytes.
func contentHash(mode int64) hash.Hash {
	h := sha256.New()
	fmt.Fprintf(h, "mode %o\n", mode&0o7777)
	return h
}

// writeContent stores a file's content as an object and returns its checksum.
// Small files are hashed first so that an object already present is not
// written; big ones are streamed to a temporary file and dropped if present.
func (r *repo) writeContent(rd io.Reader, size, mode int64) (string, error) {
	h := contentHash(mode)
	if size <= smallObject {
		if int64(cap(r.buf)) < size {
			r.buf = make([]byte, size)
		}
		buf := r.buf[:size]
		if _, err := io.ReadFull(rd, buf); err != nil {
			return "", fmt.Errorf("reading layer entry: %w", err)
		}
		h.Write(buf)
		csum := hex.EncodeToString(h.Sum(nil))
		present, err := r.hasObject(csum, kindFile)
		if err != nil {
			return "", err
		}
		if present {
			r.stats.ObjectsSkipped++
			return csum, nil
		}
		return csum, r.storeObject(csum, kindFile, func(w io.Writer) error {
			_, err := w.Write(buf)
			return err
		})
	}
	tmp, err := os.CreateTemp(filepath.Join(r.dir, "tmp"), "obj-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(rd, size))
	if err == nil && n != size {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		tmp.Close()
		return "", fmt.Errorf("reading layer entry: %w", err)
	}
	csum := hex.EncodeToString(h.Sum(nil))
	present, err := r.hasObject(csum, kindFile)
	if err != nil || present {
		tmp.Close()
		if present {
			r.stats.ObjectsSkipped++
		}
		return csum, err
	}
	return csum, r.commitTmp(tmp, csum, kindFile, size)
}

// storeObject writes an object through a temporary file and a rename.
func (r *repo) storeObject(csum, kind string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Join(r.dir, "tmp"), "obj-")
	if err != nil {
		return err
	}
	cw := &countingWriter{w: tmp}
	if err := write(cw); err != nil {
		tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := r.commitTmp(tmp, csum, kind, cw.n); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

func (r *repo) commitTmp(tmp *os.File, csum, kind string, size int64) error {
	var err error
	if r.cfg.fsync && (r.cfg.perObjectFsync || kind == kindCommit) {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), r.objectPath(csum, kind))
	}
	if err != nil {
		return fmt.Errorf("writing object %s.%s: %w", csum, kind, err)
	}
	r.stats.ObjectsWritten++
	r.stats.BytesWritten += size
	if r.onWrite != nil {
		r.onWrite()
	}
	return nil
}

// syncAll makes the objects written so far durable, unless each was already
// fsynced or fsync is off: ostree's syncfs at the end of a transaction.
func (r *repo) syncAll() error {
	if !r.cfg.fsync || r.cfg.perObjectFsync {
		return nil
	}
	d, err := os.Open(r.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	// syncfs(2), and the ioctl that tells a pagecachefs (the crash suite's
	// disks), which never sees syncfs(2) itself.
	if err := pagecachefs.Syncfs(int(d.Fd())); err != nil {
		return err
	}
	return nil
}

// commitFile is one entry of a commit's tree.
type commitFile struct {
	Path   string `json:"path"`
	Type   string `json:"type"` // file, symlink, dir
	Mode   int64  `json:"mode"`
	Size   int64  `json:"size,omitempty"`
	Object string `json:"object,omitempty"`
	Target string `json:"target,omitempty"`
}

// commit is the double's commit object: metadata and the full tree.
type commit struct {
	Timestamp int64 `json:"timestamp"`
	// Version is the image's version label (container commits).
	Version  string         `json:"version,omitempty"`
	Metadata map[string]any `json:"metadata"`
	Files    []commitFile   `json:"files"`
}

// writeCommit stores c durably and returns its checksum.
func (r *repo) writeCommit(c *commit) (string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	csum := hex.EncodeToString(sum[:])
	if ok, err := r.hasObject(csum, kindCommit); err != nil || ok {
		return csum, err
	}
	err = r.storeObject(csum, kindCommit, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err == nil && r.cfg.fsync {
		err = syncDir(filepath.Dir(r.objectPath(csum, kindCommit)))
	}
	return csum, err
}

func (r *repo) loadCommit(csum string) (*commit, error) {
	b, err := os.ReadFile(r.objectPath(csum, kindCommit))
	if err != nil {
		return nil, err
	}
	var c commit
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("commit %s: %w", csum, err)
	}
	return &c, nil
}

func (r *repo) imageRefPath(manifestDigest string) string {
	return filepath.Join(r.dir, "refs", "images", strings.ReplaceAll(manifestDigest, ":", "_"))
}

// imageCommit returns the commit an image was imported as, if it is complete
// in the repo.
func (r *repo) imageCommit(manifestDigest string) (string, bool, error) {
	b, err := os.ReadFile(r.imageRefPath(manifestDigest))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	csum := strings.TrimSpace(string(b))
	ok, err := r.hasObject(csum, kindCommit)
	return csum, ok, err
}

func (r *repo) setImageCommit(manifestDigest, csum string) error {
	return writeFileAtomic(r.imageRefPath(manifestDigest), []byte(csum+"\n"), r.cfg.fsync)
}

// prune deletes the commits, image refs and content objects that none of the
// kept commits reference, as rpm-ostree's cleanup does. It returns the bytes
// freed.
func (r *repo) prune(keep []string) (int64, error) {
	keepCommits := map[string]bool{}
	keepObjects := map[string]bool{}
	for _, csum := range keep {
		if csum == "" || keepCommits[csum] {
			continue
		}
		keepCommits[csum] = true
		c, err := r.loadCommit(csum)
		if errors.Is(err, os.ErrNotExist) {
			continue // a base deployment made by Init has no commit object
		}
		if err != nil {
			return 0, err
		}
		for _, f := range c.Files {
			if f.Object != "" {
				keepObjects[f.Object] = true
			}
		}
	}
	refs, err := os.ReadDir(filepath.Join(r.dir, "refs", "images"))
	if err != nil {
		return 0, err
	}
	for _, e := range refs {
		p := filepath.Join(r.dir, "refs", "images", e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, err
		}
		if !keepCommits[strings.TrimSpace(string(b))] {
			if err := os.Remove(p); err != nil {
				return 0, err
			}
		}
	}
	var freed int64
	err = filepath.WalkDir(filepath.Join(r.dir, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		base, kind, _ := strings.Cut(name, ".")
		csum := filepath.Base(filepath.Dir(p)) + base
		if (kind == kindCommit && keepCommits[csum]) || (kind == kindFile && keepObjects[csum]) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		freed += info.Size()
		return nil
	})
	return freed, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
