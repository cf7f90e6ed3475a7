package osdouble

import (
	"slices"
	"strings"
	"testing"
)

// kargsCase is one `rpm-ostree kargs` call on a deployment with kernel
// arguments in, and what upstream makes of it on the exact profiles
// (v2024.6 to v2026.2: rpm-ostree's kernel_arg_apply_patching after commit
// 3b7b2768, ostree-kernel-args.c after abc7d5b9) and on v2023.12 (ostree
// 2023.8). Each expectation was worked out by hand from that C source
// (README.md "Kernel arguments"), not from the double: out is the kernel
// arguments after the call (nil: "No changes."), err a part of the error.
type kargsCase struct {
	name             string
	in               []string
	args             []string // the kargs options
	exact, old       []string
	exactErr, oldErr string
}

var hugepages = []string{"hugepagesz=1G", "hugepages=16", "hugepagesz=2M", "hugepages=16"}

func appends(op string, args ...string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "--" + op + "=" + a
	}
	return out
}

func kargsCases() []kargsCase {
	return []kargsCase{
		{name: "--append keeps a repeated argument (the MCO's way)", in: []string{"rw"}, args: appends("append", hugepages...),
			exact: append([]string{"rw"}, hugepages...), old: append([]string{"rw"}, hugepages...)},
		{name: "--append-if-missing skips an argument already there", in: []string{"rw"}, args: appends("append-if-missing", hugepages...),
			exact: []string{"rw", "hugepagesz=1G", "hugepages=16", "hugepagesz=2M"},
			// 2023.12 compares keys: the second hugepagesz is skipped too.
			old: []string{"rw", "hugepagesz=1G", "hugepages=16"}},
		{name: "the MCO's update: delete-if-present the old, append the new", in: []string{"rw", "a=1", "h=16", "h=16"},
			args:  append(appends("delete-if-present", "a=1", "h=16", "h=16"), appends("append", "h=16", "h=16", "b")...),
			exact: []string{"rw", "h=16", "h=16", "b"}, old: []string{"rw", "h=16", "h=16", "b"}},
		{name: "--delete-if-present=KEY leaves KEY=VAL", in: []string{"rw", "foo=1"}, args: []string{"--delete-if-present=foo"},
			exact: nil, old: []string{"rw"}},
		{name: "append-if-missing then delete-if-present of a present argument", in: []string{"rw", "x"},
			args: []string{"--append-if-missing=x", "--delete-if-present=x"}, exact: []string{"rw"}, old: []string{"rw"}},
		{name: "delete-if-present looks at the arguments the call started from", in: []string{"rw"},
			args: []string{"--append-if-missing=x", "--delete-if-present=x"}, exact: []string{"rw", "x"}, old: []string{"rw"}},
		{name: "delete-if-present runs after --append", in: []string{"rw", "x"},
			args: []string{"--append=x", "--delete-if-present=x"}, exact: []string{"rw", "x"}, old: []string{"rw", "x"}},
		{name: "delete-if-present after a replace", in: []string{"rw", "foo=1"},
			args: []string{"--replace=foo=2", "--delete-if-present=foo=1"}, exactErr: "No karg 'foo=1' found", oldErr: "No karg 'foo=1' found"},
		{name: "--delete=KEY takes the only value", in: []string{"a=1", "b"}, args: []string{"--delete=a"}, exact: []string{"b"}, old: []string{"b"}},
		{name: "--delete=KEY among values takes the bare one", in: []string{"rw", "k", "k=1"}, args: []string{"--delete=k"},
			exact: []string{"rw", "k=1"}, old: []string{"rw", "k=1"}},
		{name: "--delete=KEY of several values", in: []string{"c=1", "c=2"}, args: []string{"--delete=c"},
			exactErr: "Multiple values for key 'c' found", oldErr: "Multiple values for key 'c' found"},
		{name: "--delete=KEY=VAL of several takes the first match", in: []string{"c=1", "c=2", "c=1"}, args: []string{"--delete=c=1"},
			exact: []string{"c=2", "c=1"}, old: []string{"c=2", "c=1"}},
		{name: "--delete of an absent key", in: []string{"a"}, args: []string{"--delete=z"}, exactErr: "No key 'z' found", oldErr: "No key 'z' found"},
		{name: "--delete of an absent value, one value", in: []string{"c=1"}, args: []string{"--delete=c=3"},
			exactErr: "No karg 'c=3' found", oldErr: "No karg 'c=3' found"},
		{name: "--delete of an absent value, several", in: []string{"c=1", "c=2"}, args: []string{"--delete=c=3"},
			exactErr: "No karg 'c=3' found", oldErr: "No karg 'c=3' found"},
		{name: "--replace=KEY=OLD=NEW", in: []string{"x=1", "x=2"}, args: []string{"--replace=x=2=3"}, exact: []string{"x=1", "x=3"}, old: []string{"x=1", "x=3"}},
		{name: "--replace of several values", in: []string{"x=1", "x=2"}, args: []string{"--replace=x=5"},
			exactErr: "Multiple values for key 'x' found", oldErr: "Multiple values for key 'x' found"},
		{name: "--replace of an absent key", in: []string{"x=1"}, args: []string{"--replace=y=1"}, exactErr: "No key 'y' found", oldErr: "No key 'y' found"},
		{name: "an argument with spaces is split outside quotes", in: []string{"rw"}, args: []string{"--append=a b", `--append=q="1 2"`},
			exact: []string{"rw", "a", "b", `q="1 2"`}, old: []string{"rw", "a b", `q="1 2"`}},
		{name: "nothing to do", in: []string{"rw"}, args: []string{"--delete-if-present=z"}, exact: nil, old: nil},
	}
}

func TestKargsPatchAsUpstream(t *testing.T) {
	for _, prof := range []string{"2023.12", "2024.6", "2025.7", "2026.2"} {
		p, err := LookupProfile(prof)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range kargsCases() {
			t.Run(prof+"/"+c.name, func(t *testing.T) {
				want, wantErr := c.exact, c.exactErr
				if prof == "2023.12" {
					want, wantErr = c.old, c.oldErr
				}
				n := newTestNode(t, InitialOS{Kargs: c.in, Profile: p.Name})
				r := n.rpmOstree(append([]string{"kargs"}, c.args...)...) // unlocked: the reboot finalizes it
				if wantErr != "" {
					if r.code != 1 || !strings.Contains(r.stderr, wantErr) {
						t.Fatalf("exit %d stderr %q, want the error %q", r.code, r.stderr, wantErr)
					}
					return
				}
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				staged, _, err := n.Staged()
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					if r.stdout != "No changes.\n" || staged != nil {
						t.Fatalf("stdout %q staged %+v, want \"No changes.\" and nothing staged", r.stdout, staged)
					}
					return
				}
				if staged == nil || !slices.Equal(staged.Kargs, want) {
					t.Fatalf("staged %+v, want kernel arguments %q", staged, want)
				}
				if err := n.Reboot(); err != nil {
					t.Fatal(err)
				}
				if got := n.booted().Kargs; !slices.Equal(got, want) {
					t.Fatalf("booted with %q, want %q", got, want)
				}
			})
		}
	}
}

// An edit that leaves the arguments as they were still stages a new
// deployment (kernel_arg_apply's changed is true once an edit ran).
func TestKargsEditToTheSameArgumentsStages(t *testing.T) {
	n := newTestNode(t, InitialOS{Kargs: []string{"rw", "x"}})
	n.mustRun("kargs", "--lock-finalization", "--append=x", "--delete-if-present=x")
	staged, locked, err := n.Staged()
	if err != nil || staged == nil || !locked || !slices.Equal(staged.Kargs, []string{"rw", "x"}) {
		t.Fatalf("staged %+v locked %v %v", staged, locked, err)
	}
}

func TestKargsDeleteWithReplaceRefused(t *testing.T) {
	n := newTestNode(t, InitialOS{Kargs: []string{"rw", "x=1"}})
	if r := n.rpmOstree("kargs", "--delete=rw", "--replace=x=2"); r.code != 1 || !strings.Contains(r.stderr, "Cannot specify both --delete and --replace") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
}
