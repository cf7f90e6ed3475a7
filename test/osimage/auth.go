package osimage

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// The registry authenticates as the registries an OpenShift node pulls its
// OS from do (the release registry, a public registry): the distribution
// token scheme (distribution/distribution docs/spec/auth/token.md). A
// request to /v2/ without a valid bearer token gets 401 with
//
//	WWW-Authenticate: Bearer realm="https://<host>/token",service="<service>"[,scope="repository:<repo>:pull"]
//
// (<host> as the request named it); the client asks the realm for a token
// with HTTP basic credentials (the auth.json's "auth"), and retries with
// "Authorization: Bearer <token>".
// As a public registry does, an anonymous client gets a token too, one that
// grants nothing, so that an unauthenticated pull fails on the manifest with
// "unauthorized: access to the requested resource is not authorized";
// wrong credentials fail at the token endpoint (401). A token of a valid
// user grants every repository (one user, no per-repository ACL).
const (
	tokenPath       = "/token"
	registryService = "tandem-test-registry"
	// registryUser is the one account; its password is random per registry.
	registryUser   = "tandem-pull"
	msgNotAuthzed  = "access to the requested resource is not authorized"
	msgBadPassword = "invalid username or password"
)

// tokenAuth guards the registry's handler.
type tokenAuth struct {
	host     func() string
	password string
	next     http.Handler

	mu     sync.Mutex
	tokens map[string]bool // token -> grants access (false: anonymous)
}

func newTokenAuth(host func() string, next http.Handler) (*tokenAuth, error) {
	pw, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	return &tokenAuth{host: host, password: pw, next: next, tokens: map[string]bool{}}, nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("registry: random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func (a *tokenAuth) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == tokenPath {
		a.serveToken(w, r)
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/v2") {
		http.NotFound(w, r)
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	a.mu.Lock()
	granted, known := a.tokens[tok]
	a.mu.Unlock()
	switch {
	case !ok || !known:
		a.challenge(w, r, "UNAUTHORIZED", "authentication required")
	case !granted:
		a.challenge(w, r, "UNAUTHORIZED", msgNotAuthzed)
	default:
		a.next.ServeHTTP(w, r)
	}
}

// challenge answers 401 with the bearer challenge and a distribution error
// body (the shape containers/image turns into "unauthorized: <message>").
func (a *tokenAuth) challenge(w http.ResponseWriter, r *http.Request, code, msg string) {
	// The realm is on the host the client reached the registry by (a VM
	// guest's forwarded address, a proxy in front): the registry's own
	// address may not be reachable from there.
	host := r.Host
	if host == "" {
		host = a.host()
	}
	c := fmt.Sprintf(`Bearer realm="https://%s%s",service=%q`, host, tokenPath, registryService)
	if repo := repoOf(r.URL.Path); repo != "" {
		c += fmt.Sprintf(`,scope="repository:%s:pull"`, repo)
	}
	w.Header().Set("WWW-Authenticate", c)
	writeRegistryError(w, http.StatusUnauthorized, code, msg)
}

// repoOf is the repository of a /v2/<repo>/(manifests|blobs|tags)/... path.
func repoOf(p string) string {
	rest, ok := strings.CutPrefix(p, "/v2/")
	if !ok {
		return ""
	}
	for _, kind := range []string{"/manifests/", "/blobs/", "/tags/"} {
		if i := strings.LastIndex(rest, kind); i > 0 {
			return rest[:i]
		}
	}
	return ""
}

// serveToken is the token endpoint: basic credentials that match give a
// token that grants access, none give an anonymous one, others a 401.
func (a *tokenAuth) serveToken(w http.ResponseWriter, r *http.Request) {
	granted := false
	if user, pw, ok := r.BasicAuth(); ok {
		if user != registryUser || subtle.ConstantTimeCompare([]byte(pw), []byte(a.password)) != 1 {
			writeRegistryError(w, http.StatusUnauthorized, "UNAUTHORIZED", msgBadPassword)
			return
		}
		granted = true
	}
	tok, err := randomHex(24)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	a.mu.Lock()
	a.tokens[tok] = granted
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"token": tok, "access_token": tok, "expires_in": 3600})
}

func writeRegistryError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"code": code, "message": msg}}})
}

// basicAuth is the base64 "user:password" of auth.json's "auth" field.
func basicAuth(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}
