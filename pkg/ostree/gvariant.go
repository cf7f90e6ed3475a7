package ostree

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// A reader of GVariant's serialisation format (normal form), for the one
// file tandem reads: /run/ostree/staged-deployment, an "a{sv}" (ostree
// ostree-sysroot-deploy.c, ostree_sysroot_stage_tree_with_options). Only
// what that file holds is decoded: dictionaries of variants, strings and
// booleans. Checked against payloads GLib wrote (test/fixtures/ostree).

// variantDict is a decoded a{sv}: each value is its type string and bytes.
type variantDict map[string]variantValue

type variantValue struct {
	typ  string
	data []byte
}

// parseVariantDict decodes an a{sv}.
func parseVariantDict(b []byte) (variantDict, error) {
	out := variantDict{}
	elems, err := splitArray(b, 8)
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		key, val, err := parseEntry(e)
		if err != nil {
			return nil, err
		}
		out[key] = val
	}
	return out, nil
}

// lookupBool returns the boolean at key; ok is false when key is absent.
func (d variantDict) lookupBool(key string) (v, ok bool, err error) {
	val, found := d[key]
	if !found {
		return false, false, nil
	}
	if val.typ != "b" || len(val.data) != 1 {
		return false, true, fmt.Errorf("%q is a %q of %d bytes, not a boolean", key, val.typ, len(val.data))
	}
	return val.data[0] != 0, true, nil
}

// lookupString returns the string at key ("" when absent).
func (d variantDict) lookupString(key string) (string, error) {
	val, found := d[key]
	if !found {
		return "", nil
	}
	if val.typ != "s" || len(val.data) == 0 || val.data[len(val.data)-1] != 0 {
		return "", fmt.Errorf("%q is a %q, not a string", key, val.typ)
	}
	return string(val.data[:len(val.data)-1]), nil
}

// lookupDict returns the a{sv} at key (nil when absent).
func (d variantDict) lookupDict(key string) (variantDict, error) {
	val, found := d[key]
	if !found {
		return nil, nil
	}
	if val.typ != "a{sv}" {
		return nil, fmt.Errorf("%q is a %q, not an a{sv}", key, val.typ)
	}
	return parseVariantDict(val.data)
}

// offsetSize is the size of a container's framing offsets (GLib
// gvs_get_offset_size).
func offsetSize(n int) int {
	switch {
	case n > 0xffffffff:
		return 8
	case n > 0xffff:
		return 4
	case n > 0xff:
		return 2
	case n > 0:
		return 1
	}
	return 0
}

func readOffset(b []byte) int {
	var buf [8]byte
	copy(buf[:], b)
	return int(binary.LittleEndian.Uint64(buf[:]))
}

// splitArray returns the elements of an array of variable-size elements.
func splitArray(b []byte, align int) ([][]byte, error) {
	n := len(b)
	if n == 0 {
		return nil, nil
	}
	w := offsetSize(n)
	last := readOffset(b[n-w:])
	if last > n-w || (n-last)%w != 0 {
		return nil, fmt.Errorf("bad array framing (size %d, last offset %d)", n, last)
	}
	count := (n - last) / w
	var out [][]byte
	start := 0
	for i := range count {
		end := readOffset(b[last+i*w : last+(i+1)*w])
		start = (start + align - 1) / align * align
		if end < start || end > last {
			return nil, fmt.Errorf("bad array element %d framing [%d,%d)", i, start, end)
		}
		out = append(out, b[start:end])
		start = end
	}
	return out, nil
}

// parseEntry decodes a {sv}: key, the variant aligned to 8, the key's end offset.
func parseEntry(b []byte) (string, variantValue, error) {
	w := offsetSize(len(b))
	if len(b) < w+1 {
		return "", variantValue{}, fmt.Errorf("dict entry of %d bytes", len(b))
	}
	keyEnd := readOffset(b[len(b)-w:])
	if keyEnd < 1 || keyEnd > len(b)-w || b[keyEnd-1] != 0 {
		return "", variantValue{}, fmt.Errorf("bad dict entry key framing")
	}
	key := string(b[:keyEnd-1])
	vstart := (keyEnd + 7) / 8 * 8
	if vstart > len(b)-w {
		return "", variantValue{}, fmt.Errorf("dict entry %q without a value", key)
	}
	v := b[vstart : len(b)-w]
	sep := bytes.LastIndexByte(v, 0)
	if sep < 0 {
		return "", variantValue{}, fmt.Errorf("dict entry %q: variant without a type", key)
	}
	return key, variantValue{typ: string(v[sep+1:]), data: v[:sep]}, nil
}
