package constants

import (
	"encoding/json"
	"fmt"
	"time"
)

// StageFailureAnnotation (daemon -> controller): the background stage of
// a config failed and is being retried. A node carrying it keeps serving:
// the failure is not Degraded and the node is not unavailable (a stage
// touches neither the running OS nor the workloads). The controller does
// not grant that config to it, and takes back a grant it has not started
// on. The value is a StageFailure in JSON. The daemon removes it when the
// stage succeeds (with stagedConfig, in one patch) or when the config is no
// longer asked for.
const StageFailureAnnotation = Prefix + "stageFailure"

// StageFailure is the StageFailureAnnotation's value.
type StageFailure struct {
	// Config is the rendered config whose stage failed.
	Config string `json:"config"`
	// Since is when its first attempt failed.
	Since time.Time `json:"since"`
	// Reason is the last attempt's error.
	Reason string `json:"reason"`
	// Attempts counts the failed attempts since Since.
	Attempts int `json:"attempts"`
}

// ParseStageFailure reads the annotation's value; ok is false when it is
// empty. A value that does not parse is an error, never a silent "no
// failure".
func ParseStageFailure(v string) (f StageFailure, ok bool, err error) {
	if v == "" {
		return StageFailure{}, false, nil
	}
	if err := json.Unmarshal([]byte(v), &f); err != nil {
		return StageFailure{}, false, fmt.Errorf("annotation %s: %w", StageFailureAnnotation, err)
	}
	if f.Config == "" {
		return StageFailure{}, false, fmt.Errorf("annotation %s names no config: %q", StageFailureAnnotation, v)
	}
	return f, true, nil
}

// Encode is the annotation's value.
func (f StageFailure) Encode() string {
	b, _ := json.Marshal(f) // a struct of strings, a time and an int always marshals
	return string(b)
}
