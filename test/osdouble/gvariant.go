package osdouble

import "encoding/binary"

// A writer of GVariant's serialisation format (normal form), for the one
// file the double must write as ostree does: /run/ostree/staged-deployment,
// an "a{sv}". Only the types that file holds are supported: s, b, as, a{sv}.
// Its output is compared byte for byte with payloads GLib itself wrote
// (test/fixtures/ostree). Format: GVariant specification, "Serialisation".

// gvValue is one value to serialise.
type gvValue interface {
	typeString() string
	alignment() int
	serialise() []byte
}

type gvString string

func (gvString) typeString() string  { return "s" }
func (gvString) alignment() int      { return 1 }
func (s gvString) serialise() []byte { return append([]byte(s), 0) }

type gvBool bool

func (gvBool) typeString() string { return "b" }
func (gvBool) alignment() int     { return 1 }
func (b gvBool) serialise() []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}

type gvStrings []string

func (gvStrings) typeString() string { return "as" }
func (gvStrings) alignment() int     { return 1 }
func (a gvStrings) serialise() []byte {
	var elems [][]byte
	for _, s := range a {
		elems = append(elems, gvString(s).serialise())
	}
	return gvArray(elems, 1)
}

// gvEntry is one {sv} entry.
type gvEntry struct {
	key string
	val gvValue
}

// gvDict is an a{sv}, in the order its entries were added (as
// g_variant_builder_end keeps them).
type gvDict []gvEntry

func (gvDict) typeString() string { return "a{sv}" }
func (gvDict) alignment() int     { return 8 }
func (d gvDict) serialise() []byte {
	var elems [][]byte
	for _, e := range d {
		elems = append(elems, e.serialise())
	}
	return gvArray(elems, 8)
}

// serialise writes the {sv} dict entry: the key, the variant aligned to 8,
// then the framing offset of the key's end (the only non-last
// variable-size member).
func (e gvEntry) serialise() []byte {
	out := gvString(e.key).serialise()
	keyEnd := len(out)
	out = pad(out, 8)
	v := e.val.serialise()
	out = append(out, v...)
	out = append(out, 0)
	out = append(out, e.val.typeString()...)
	return appendOffsets(out, []int{keyEnd})
}

// gvArray lays out variable-size elements, each aligned, followed by the
// table of their end offsets.
func gvArray(elems [][]byte, align int) []byte {
	if len(elems) == 0 {
		return nil
	}
	var body []byte
	var ends []int
	for _, e := range elems {
		body = pad(body, align)
		body = append(body, e...)
		ends = append(ends, len(body))
	}
	return appendOffsets(body, ends)
}

// appendOffsets appends framing offsets with the smallest size that can
// address the whole container (1, 2, 4 or 8 bytes).
func appendOffsets(body []byte, offsets []int) []byte {
	size := 1
	for ; size < 8; size *= 2 {
		if len(body)+size*len(offsets) < 1<<(8*size) {
			break
		}
	}
	for _, o := range offsets {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(o))
		body = append(body, b[:size]...)
	}
	return body
}

func pad(b []byte, align int) []byte {
	for len(b)%align != 0 {
		b = append(b, 0)
	}
	return b
}
