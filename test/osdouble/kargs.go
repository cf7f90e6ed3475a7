package osdouble

import (
	"fmt"
	"slices"
	"strings"
)

// kernelArgs is ostree's OstreeKernelArgs (src/libostree/ostree-kernel-args.c
// at v2025.7; v2023.8 where the profile says): the arguments in order, each
// a key and an optional value. The entries of one key, in order, are what
// ostree's hash table keeps for it (entries are only ever appended, removed
// or changed in place, so the two orders agree).
type kernelArgs struct {
	split   bool // SplitKargs (ostree >= 2024.5)
	entries []kargEntry
}

type kargEntry struct {
	key   string
	value *string // nil: "key" alone; "" is "key="
}

func (e kargEntry) String() string {
	if e.value == nil {
		return e.key
	}
	return e.key + "=" + *e.value
}

// splitKeyEq is split_keyeq: the key before the first '=', the value after
// it (nil without '=').
func splitKeyEq(arg string) kargEntry {
	k, v, ok := strings.Cut(arg, "=")
	if !ok {
		return kargEntry{key: arg}
	}
	return kargEntry{key: k, value: &v}
}

// splitKernelArgs is split_kernel_args (ostree >= 2024.5): leading spaces
// skipped, then every space outside double quotes ends an argument (two
// spaces make an empty one); an unterminated quote drops the last slice
// (upstream asserts there).
func splitKernelArgs(s string) []string {
	s = strings.TrimLeft(s, " ")
	var out []string
	quoted := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case s[i] == ' ' && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if !quoted {
		out = append(out, s[start:])
	}
	return out
}

// pieces is how one argument given to append, delete or replace is taken:
// split (>= 2024.5) or whole.
func (k *kernelArgs) pieces(arg string) []string {
	if k.split {
		return splitKernelArgs(arg)
	}
	return []string{arg}
}

// parseKernelArgs is ostree_kernel_args_from_string of a deployment's
// options line (the arguments joined by spaces): split_kernel_args from
// 2024.5, g_strsplit on every space before.
func parseKernelArgs(args []string, split bool) *kernelArgs {
	k := &kernelArgs{split: split}
	line := strings.Join(args, " ")
	if line == "" {
		return k
	}
	var parts []string
	if split {
		parts = splitKernelArgs(line)
	} else {
		parts = strings.Split(line, " ")
	}
	for _, p := range parts {
		k.entries = append(k.entries, splitKeyEq(p))
	}
	return k
}

// strv is ostree_kernel_args_to_strv.
func (k *kernelArgs) strv() []string {
	out := make([]string, len(k.entries))
	for i, e := range k.entries {
		out[i] = e.String()
	}
	return out
}

// ofKey are the indexes of key's entries, in order.
func (k *kernelArgs) ofKey(key string) []int {
	var idx []int
	for i, e := range k.entries {
		if e.key == key {
			idx = append(idx, i)
		}
	}
	return idx
}

// containsKey is ostree_kernel_args_contains (ostree 2023.8): the key of
// arg is present, whatever its value.
func (k *kernelArgs) containsKey(arg string) bool {
	return len(k.ofKey(splitKeyEq(arg).key)) > 0
}

// firstWithValue is the first of the entries idx whose value is v, -1 if
// none (ot_ptr_array_find_with_equal_func with kernel_args_entry_value_equal).
func (k *kernelArgs) firstWithValue(idx []int, v *string) int {
	for _, i := range idx {
		if sameValue(k.entries[i].value, v) {
			return i
		}
	}
	return -1
}

func sameValue(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// appendArg is ostree_kernel_args_append.
func (k *kernelArgs) appendArg(arg string) {
	for _, p := range k.pieces(arg) {
		k.entries = append(k.entries, splitKeyEq(p))
	}
}

// lookup splits one argument and finds its key's entries (the hash table
// lookup; "No key '%s' found" without any).
func (k *kernelArgs) lookup(piece string) (kargEntry, []int, error) {
	want := splitKeyEq(piece)
	idx := k.ofKey(want.key)
	if len(idx) == 0 {
		return want, nil, fmt.Errorf("No key '%s' found", want.key)
	}
	return want, idx, nil
}

// deleteArg is ostree_kernel_args_delete: "key" deletes the key's only
// entry (whatever its value), or, among several, the one without a value;
// "key=val" the first entry with that value.
func (k *kernelArgs) deleteArg(arg string) error {
	for _, p := range k.pieces(arg) {
		want, idx, err := k.lookup(p)
		if err != nil {
			return err
		}
		if len(idx) == 1 {
			if want.value != nil && !sameValue(want.value, k.entries[idx[0]].value) {
				return fmt.Errorf("No karg '%s=%s' found", want.key, *want.value)
			}
			k.entries = append(k.entries[:idx[0]], k.entries[idx[0]+1:]...)
			continue
		}
		found := k.firstWithValue(idx, want.value)
		if found < 0 {
			if want.value == nil {
				return fmt.Errorf("Multiple values for key '%s' found", arg)
			}
			return fmt.Errorf("No karg '%s' found", arg)
		}
		k.entries = append(k.entries[:found], k.entries[found+1:]...)
	}
	return nil
}

// newReplace is ostree_kernel_args_new_replace: "key=old=new" replaces the
// value old; "key" or "key=new" replaces the key's only value.
func (k *kernelArgs) newReplace(arg string) error {
	for _, p := range k.pieces(arg) {
		want, idx, err := k.lookup(p)
		if err != nil {
			return err
		}
		if want.value != nil && strings.Contains(*want.value, "=") {
			oldNew := splitKeyEq(*want.value)
			found := k.firstWithValue(idx, &oldNew.key)
			if found < 0 {
				return fmt.Errorf("No karg '%s=%s' found", want.key, oldNew.key)
			}
			k.entries[found].value = oldNew.value
			continue
		}
		if len(idx) > 1 {
			return fmt.Errorf("Multiple values for key '%s' found", want.key)
		}
		k.entries[idx[0]].value = want.value
	}
	return nil
}

// kargsPatch is one `rpm-ostree kargs` call: its --append, --replace and
// --delete (the D-Bus method's arguments) and its --append-if-missing and
// --delete-if-present (options).
type kargsPatch struct {
	append, replace, delete          []string
	appendIfMissing, deleteIfPresent []string
}

// applyKargsPatch is rpm-ostree's kernel_arg_apply_patching
// (src/daemon/rpmostreed-transaction-types.cxx, v2024.6 to v2026.2; v2023.12
// where the profile says) on the kernel arguments the transaction starts
// from: deletes, replaces, appends, then append-if-missing, then
// delete-if-present. changed is upstream's: true as soon as one edit ran,
// even when the result equals the start (then a new deployment is staged
// all the same); false means "No changes.".
func applyKargsPatch(existing []string, p kargsPatch, prof Profile) (out []string, changed bool, err error) {
	k := parseKernelArgs(existing, prof.SplitKargs)
	start := parseKernelArgs(existing, prof.SplitKargs).strv()
	for _, a := range p.delete {
		if err := k.deleteArg(a); err != nil {
			return nil, false, err
		}
		changed = true
	}
	for _, a := range p.replace {
		if err := k.newReplace(a); err != nil {
			return nil, false, err
		}
		changed = true
	}
	for _, a := range p.append {
		k.appendArg(a)
		changed = true
	}
	for _, a := range p.appendIfMissing {
		if prof.ExactKargsIfPresent {
			if !slices.Contains(k.strv(), a) {
				k.appendArg(a)
				changed = true
			}
		} else if !k.containsKey(a) { // ostree_kernel_args_append_if_missing
			k.appendArg(a)
			changed = true
		}
	}
	for _, a := range p.deleteIfPresent {
		present := k.containsKey(a) // ostree_kernel_args_delete_if_present
		if prof.ExactKargsIfPresent {
			present = slices.Contains(start, a) // the arguments the call started from
		}
		if present {
			if err := k.deleteArg(a); err != nil {
				return nil, false, err
			}
			changed = true
		}
	}
	return k.strv(), changed, nil
}
