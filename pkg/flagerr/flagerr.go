// Package flagerr names the setting a bad value came from. A controller
// setting is a command-line flag or a key of the controller's ConfigMap
// (pkg/cli/mcc); both are named alike ("dpu-mode"), so a validation error
// carries the name and the caller says where it was set.
package flagerr

import (
	"errors"
	"fmt"
)

// Error is a bad value of the setting Name.
type Error struct {
	Name string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("--%s: %v", e.Name, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error for the setting name.
func New(name, format string, args ...any) *Error {
	return &Error{Name: name, Err: fmt.Errorf(format, args...)}
}

// Names lists the settings err (possibly an errors.Join) names, in order,
// each once; an error that names none is listed as "".
func Names(err error) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range Flatten(err) {
		name := ""
		var fe *Error
		if errors.As(e, &fe) {
			name = fe.Name
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// Flatten returns the errors an errors.Join holds (recursively), or err
// itself; nil for nil.
func Flatten(err error) []error {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, Flatten(e)...)
	}
	return out
}
