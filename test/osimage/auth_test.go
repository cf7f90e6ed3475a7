package osimage

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestRegistryIsPrivate: HTTPS with its own CA only, a bearer challenge as
// distribution's token spec has it, 401 for wrong credentials at the token
// endpoint, and an anonymous token that grants nothing.
func TestRegistryIsPrivate(t *testing.T) {
	reg, err := StartRegistry(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if _, err := http.Get("https://" + reg.Host() + "/v2/"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a client without the CA: %v", err)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: reg.ClientTLS()}}
	resp, err := c.Get("https://" + reg.Host() + "/v2/os/manifests/v1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `Bearer realm="https://` + reg.Host() + `/token",service="tandem-test-registry",scope="repository:os:pull"`
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Fatalf("no token: %s %q, want 401 %q", resp.Status, resp.Header.Get("WWW-Authenticate"), want)
	}
	// Reached by another name (a VM guest's forwarded address), the realm
	// is on that name: the registry's own address may not be reachable.
	req, _ := http.NewRequest(http.MethodGet, "https://"+reg.Host()+"/v2/", nil)
	req.Host = "10.0.2.100:5000"
	if resp, err = c.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer realm="https://10.0.2.100:5000/token"`) {
		t.Errorf("challenge through another name: %q", got)
	}
	token := func(user, pw string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "https://"+reg.Host()+"/token?service=tandem-test-registry&scope=repository:os:pull", nil)
		if user != "" {
			req.SetBasicAuth(user, pw)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var tok struct {
			Token string `json:"token"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&tok)
		return resp.StatusCode, tok.Token
	}
	if code, _ := token(reg.Username(), "wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong password: %d, want 401", code)
	}
	get := func(tok string) int {
		req, _ := http.NewRequest(http.MethodGet, "https://"+reg.Host()+"/v2/", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code, tok := token("", ""); code != http.StatusOK || get(tok) != http.StatusUnauthorized {
		t.Errorf("anonymous token: %d, and it was accepted", code)
	}
	if code, tok := token(reg.Username(), reg.Password()); code != http.StatusOK || get(tok) != http.StatusOK {
		t.Errorf("the account's token: %d, refused", code)
	}
}
