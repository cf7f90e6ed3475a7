package vm

import (
	"slices"
	"strings"
	"testing"
)

var scenarioNames = []string{"1-staged", "2-power-loss", "3-locked", "10-tenth"}

func TestSelectScenarios(t *testing.T) {
	tests := []struct {
		sel     string
		want    []string
		wantErr string
	}{
		{"", scenarioNames, ""},
		{"  ", scenarioNames, ""},
		{"3,1", []string{"1-staged", "3-locked"}, ""},
		{" 10 ", []string{"10-tenth"}, ""},
		{"1,9", nil, `TANDEM_VM_SCENARIOS="1,9" names no scenario: "9"`},
		{"one", nil, `names no scenario: "one"`},
	}
	for _, tt := range tests {
		got, err := SelectScenarios(scenarioNames, tt.sel)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want one saying %q", tt.sel, err, tt.wantErr)
			}
		case err != nil || !slices.Equal(got, tt.want):
			t.Errorf("%q: %v, %v; want %v", tt.sel, got, err, tt.want)
		}
	}
}

func TestScenarioRunVerdict(t *testing.T) {
	all := scenarioNames
	tests := []struct {
		name       string
		run        ScenarioRun
		wantFields string
		wantWrong  []string
	}{
		{"all ran and passed", ScenarioRun{All: all, Selected: all, Ran: all, Passed: all},
			"scenarios=4 passed=4", nil},
		{"one did not run", ScenarioRun{All: all, Selected: all, Ran: all[:3], Passed: all[:3]},
			"scenarios=3 passed=3", []string{"scenario 10-tenth did not run"}},
		{"one failed", ScenarioRun{All: all, Selected: all, Ran: all, Passed: all[1:]},
			"scenarios=4 passed=3", []string{"scenario 1-staged failed"}},
		{"narrowed on purpose: passes, and says so", ScenarioRun{All: all, Selected: []string{"1-staged", "3-locked"},
			Ran: []string{"1-staged", "3-locked"}, Passed: []string{"1-staged", "3-locked"}},
			"scenarios=2 passed=2 narrowed=1,3 of=4", nil},
		{"narrowed, and a selected one did not run", ScenarioRun{All: all, Selected: []string{"1-staged", "3-locked"},
			Ran: []string{"1-staged"}, Passed: []string{"1-staged"}},
			"scenarios=1 passed=1 narrowed=1,3 of=4", []string{"scenario 3-locked did not run"}},
		{"ran one not selected", ScenarioRun{All: all, Selected: []string{"1-staged"}, Ran: []string{"1-staged", "2-power-loss"},
			Passed: []string{"1-staged", "2-power-loss"}},
			"scenarios=2 passed=2 narrowed=1 of=4", []string{"scenario 2-power-loss ran without being selected"}},
	}
	for _, tt := range tests {
		fields, wrong := tt.run.Verdict()
		if fields != tt.wantFields || !slices.Equal(wrong, tt.wantWrong) {
			t.Errorf("%s: %q %q, want %q %q", tt.name, fields, wrong, tt.wantFields, tt.wantWrong)
		}
	}
}
