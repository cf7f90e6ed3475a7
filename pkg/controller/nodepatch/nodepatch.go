// Package nodepatch builds JSON patches (RFC 6902) of a Node's annotations.
//
// A JSON patch is how a controller writes a node conditionally without its
// resourceVersion: "test" ops on the annotations a decision read make the
// apiserver refuse the whole patch if one of them changed meanwhile (the
// daemon and the kubelet write the node all the time, so a resourceVersion
// precondition would fail on unrelated writes). The drain, DPU, masters and
// node-metadata controllers each carry a copy of AnnotationPath; new code
// uses this one.
package nodepatch

import (
	"encoding/json"
	"fmt"
	"strings"
)

// op is one JSON patch operation. Its value is always written, null
// included: a test for null is a test that the member is absent
// (gopkg.in/evanphx/json-patch.v4, which the apiserver uses, compares a
// missing member as null).
type op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// escaper escapes a JSON pointer token (RFC 6901): "~" then "/".
var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// AnnotationPath is the JSON pointer of an annotation.
func AnnotationPath(key string) string {
	return "/metadata/annotations/" + escaper.Replace(key)
}

// Patch is a JSON patch under construction.
type Patch struct {
	ops []op
}

// Test asks that annotation key be value; present false asks that it be
// absent (an annotation set to "" is present).
func (p *Patch) Test(key, value string, present bool) *Patch {
	var v any
	if present {
		v = value
	}
	p.ops = append(p.ops, op{Op: "test", Path: AnnotationPath(key), Value: v})
	return p
}

// Replace sets annotation key, which must exist (a missing one fails the
// whole patch: use it for annotations the patch also tests).
func (p *Patch) Replace(key, value string) *Patch {
	p.ops = append(p.ops, op{Op: "replace", Path: AnnotationPath(key), Value: value})
	return p
}

// Marshal encodes the patch.
func (p *Patch) Marshal() ([]byte, error) {
	b, err := json.Marshal(p.ops)
	if err != nil {
		return nil, fmt.Errorf("encoding JSON patch: %w", err)
	}
	return b, nil
}
