package vm

import (
	"fmt"
	"slices"
	"strings"
)

// ScenariosEnv narrows TestVMNode to some scenarios, by number
// (comma-separated, e.g. "1,4"); empty: all of them.
const ScenariosEnv = "TANDEM_VM_SCENARIOS"

// SelectScenarios returns the scenarios of all (named "<number>-<what>")
// that sel names, in their order; all of them when sel is empty. A number
// that names no scenario is an error: a typo must not narrow the run to
// nothing and pass.
func SelectScenarios(all []string, sel string) ([]string, error) {
	if strings.TrimSpace(sel) == "" {
		return slices.Clone(all), nil
	}
	want := map[string]bool{}
	for _, x := range strings.Split(sel, ",") {
		want[strings.TrimSpace(x)] = true
	}
	var out []string
	for _, name := range all {
		num, _, _ := strings.Cut(name, "-")
		if want[num] {
			out = append(out, name)
			delete(want, num)
		}
	}
	if len(want) > 0 {
		unknown := make([]string, 0, len(want))
		for x := range want {
			unknown = append(unknown, fmt.Sprintf("%q", x))
		}
		slices.Sort(unknown)
		return nil, fmt.Errorf("%s=%q names no scenario: %s (the scenarios are %s)", ScenariosEnv, sel,
			strings.Join(unknown, ", "), strings.Join(all, ", "))
	}
	return out, nil
}

// ScenarioRun is what one run of the scenarios did.
type ScenarioRun struct {
	All      []string // every scenario, in order
	Selected []string // what the run was asked to run (SelectScenarios)
	Ran      []string // the scenarios started
	Passed   []string // the scenarios that passed
}

// Verdict judges a run: every selected scenario ran and passed, and a run
// that selected fewer than all of them says so in its result line. It
// returns the line's scenario fields and what is wrong ("": nothing).
func (r ScenarioRun) Verdict() (fields string, wrong []string) {
	for _, s := range r.Selected {
		switch {
		case !slices.Contains(r.Ran, s):
			wrong = append(wrong, fmt.Sprintf("scenario %s did not run", s))
		case !slices.Contains(r.Passed, s):
			wrong = append(wrong, fmt.Sprintf("scenario %s failed", s))
		}
	}
	for _, s := range r.Ran {
		if !slices.Contains(r.Selected, s) {
			wrong = append(wrong, fmt.Sprintf("scenario %s ran without being selected", s))
		}
	}
	fields = fmt.Sprintf("scenarios=%d passed=%d", len(r.Ran), len(r.Passed))
	if len(r.Selected) < len(r.All) {
		nums := make([]string, 0, len(r.Selected))
		for _, s := range r.Selected {
			num, _, _ := strings.Cut(s, "-")
			nums = append(nums, num)
		}
		fields += fmt.Sprintf(" narrowed=%s of=%d", strings.Join(nums, ","), len(r.All))
	}
	return fields, wrong
}
