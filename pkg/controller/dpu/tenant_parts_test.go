package dpu

import (
	"context"
	"strings"
	"testing"
)

// TestNewTenantControllerFromNeedsItsParts: a controller on given edges
// says which are missing, and one made that way refuses to Run (it has no
// informers to start).
func TestNewTenantControllerFromNeedsItsParts(t *testing.T) {
	if _, err := NewTenantControllerFrom(TenantParts{}, TenantOptions{}); err == nil ||
		!strings.Contains(err.Error(), "parts need Requests, Nodes, Pools, Writer and Drains") {
		t.Errorf("no parts: err %v", err)
	}
	c, err := newTenantController(nil, TenantParts{}, TenantOptions{Recorder: discardEvents{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "no informers") {
		t.Errorf("Run of a controller without informers: err %v", err)
	}
}
