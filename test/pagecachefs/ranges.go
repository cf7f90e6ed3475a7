package pagecachefs

import "sort"

// ranges is a set of byte ranges [start, end), kept sorted and merged: the
// parts of a file written since its data was last made durable.
type ranges []span

type span struct{ start, end int64 }

// add marks [off, off+n) dirty.
func (r *ranges) add(off, n int64) {
	if n <= 0 {
		return
	}
	s := span{off, off + n}
	out := make(ranges, 0, len(*r)+1)
	for _, x := range *r {
		switch {
		case x.end < s.start || x.start > s.end:
			out = append(out, x)
		default: // overlapping or touching: merge into s
			s.start, s.end = min(s.start, x.start), max(s.end, x.end)
		}
	}
	out = append(out, s)
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	*r = out
}

// truncate forgets what lies at or beyond size: those bytes no longer exist.
func (r *ranges) truncate(size int64) {
	out := (*r)[:0]
	for _, x := range *r {
		if x.start >= size {
			continue
		}
		x.end = min(x.end, size)
		out = append(out, x)
	}
	*r = out
}

// bytes is the number of dirty bytes.
func (r ranges) bytes() int64 {
	var n int64
	for _, x := range r {
		n += x.end - x.start
	}
	return n
}
