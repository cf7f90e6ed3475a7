package osimage

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultSourceDirs are where the synthesizer looks for ELF files.
func DefaultSourceDirs() []string {
	return []string{"/usr/bin", "/usr/sbin", "/usr/libexec", "/usr/lib", "/usr/lib64"}
}

// elfSource is one ELF file found on the machine.
type elfSource struct {
	path string // absolute path on the machine
	size int64
}

// findELFs walks dirs in lexical order and returns regular ELF files until
// their sizes add up to at least want bytes (or the dirs are exhausted).
// Lexical order keeps the result, and so the image digest, deterministic.
func findELFs(ctx context.Context, dirs []string, want int64) ([]elfSource, error) {
	var out []elfSource
	var total int64
	errEnough := errors.New("enough")
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
					return nil // unreadable parts of the tree are skipped, not fatal
				}
				return err
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil || info.Size() < 64 {
				return nil
			}
			if !isELF(p) {
				return nil
			}
			out = append(out, elfSource{path: p, size: info.Size()})
			total += info.Size()
			if total >= want {
				return errEnough
			}
			return nil
		})
		if errors.Is(err, errEnough) {
			return out, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("walking %s: %w", dir, err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no ELF files found under %v", dirs)
	}
	return out, nil
}

func isELF(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false
	}
	return bytes.Equal(magic[:], []byte(elf.ELFMAG))
}

// mutation says how one copy of an ELF file is changed for one image version.
type mutation struct {
	version int
	seed    int64
	copy    int // >0 when the machine's files are reused to reach the size asked
}

func (m mutation) stamp() string {
	return fmt.Sprintf("tandem-osimage v%d s%d c%d", m.version, m.seed, m.copy)
}

// mutatedELF is an ELF file with benign changes: the start of its .comment
// section (NUL-terminated compiler notes nobody executes) is overwritten with a
// version stamp, and a trailer is appended after the end of the file, where
// loaders never look. The result is still a valid ELF file whose bytes differ
// for every version, seed and copy.
type mutatedELF struct {
	src     elfSource
	patchAt int64  // offset of the .comment patch, -1 if none
	patch   []byte // bytes written at patchAt
	trailer []byte
}

func newMutatedELF(src elfSource, m mutation) (*mutatedELF, error) {
	me := &mutatedELF{src: src, patchAt: -1}
	f, err := os.Open(src.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	stamp := m.stamp()
	if ef, err := elf.NewFile(f); err == nil {
		if sec := ef.Section(".comment"); sec != nil && sec.Type != elf.SHT_NOBITS && sec.Size > 2 {
			n := min(int(sec.Size)-1, len(stamp)) // keep the section's last NUL
			if int64(sec.Offset)+int64(n) <= src.size {
				me.patchAt = int64(sec.Offset)
				me.patch = []byte(stamp[:n])
			}
		}
	}
	me.trailer = []byte(fmt.Sprintf("\n#%s %s\n", stamp, src.path))
	return me, nil
}

// Size is the size of the mutated file.
func (me *mutatedELF) Size() int64 { return me.src.size + int64(len(me.trailer)) }

// WriteTo streams the mutated file to w.
func (me *mutatedELF) WriteTo(w io.Writer) (int64, error) {
	f, err := os.Open(me.src.path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var written int64
	copyN := func(r io.Reader, n int64) error {
		c, err := io.CopyN(w, r, n)
		written += c
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s shrank while being read: %w", me.src.path, io.ErrUnexpectedEOF)
		}
		return err
	}
	if me.patchAt >= 0 {
		if err := copyN(f, me.patchAt); err != nil {
			return written, err
		}
		c, err := w.Write(me.patch)
		written += int64(c)
		if err != nil {
			return written, err
		}
		if _, err := f.Seek(int64(len(me.patch)), io.SeekCurrent); err != nil {
			return written, err
		}
		if err := copyN(f, me.src.size-me.patchAt-int64(len(me.patch))); err != nil {
			return written, err
		}
	} else if err := copyN(f, me.src.size); err != nil {
		return written, err
	}
	c, err := w.Write(me.trailer)
	written += int64(c)
	return written, err
}
