package osimage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// pusher uploads blobs and manifests with the distribution protocol's
// monolithic upload (POST with ?digest=), streaming from a file: the stock
// chunked upload of go-containerregistry's remote package makes the registry
// buffer the whole blob in memory, which GiB layers cannot afford.
type pusher struct {
	client *http.Client
	base   string // https://host/v2/repo
	reg    *Registry
	token  string
}

func newPusher(reg *Registry, repo string) *pusher {
	return &pusher{client: &http.Client{Transport: &http.Transport{TLSClientConfig: reg.ClientTLS()}},
		base: "https://" + reg.Host() + "/v2/" + repo, reg: reg}
}

// do sends req with the push token, which it gets first from the
// registry's token endpoint with the account's credentials.
func (p *pusher) do(req *http.Request) (*http.Response, error) {
	if p.token == "" {
		treq, err := http.NewRequestWithContext(req.Context(), http.MethodGet, "https://"+p.reg.Host()+tokenPath, nil)
		if err != nil {
			return nil, err
		}
		treq.SetBasicAuth(p.reg.Username(), p.reg.Password())
		resp, err := p.client.Do(treq)
		if err != nil {
			return nil, fmt.Errorf("registry token: %w", err)
		}
		var tok struct {
			Token string `json:"token"`
		}
		err = json.NewDecoder(resp.Body).Decode(&tok)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || tok.Token == "" {
			return nil, fmt.Errorf("registry token: %s: %v", resp.Status, err)
		}
		p.token = tok.Token
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	return p.client.Do(req)
}

func (p *pusher) blobExists(ctx context.Context, digest string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, p.base+"/blobs/"+digest, nil)
	if err != nil {
		return false, err
	}
	resp, err := p.do(req)
	if err != nil {
		return false, fmt.Errorf("HEAD blob %s: %w", digest, err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

// pushBlobFile uploads the file at path as the blob digest, unless present.
func (p *pusher) pushBlobFile(ctx context.Context, digest, path string) error {
	if ok, err := p.blobExists(ctx, digest); err != nil || ok {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return p.postBlob(ctx, digest, f, fi.Size())
}

func (p *pusher) pushBlobBytes(ctx context.Context, digest string, b []byte) error {
	if ok, err := p.blobExists(ctx, digest); err != nil || ok {
		return err
	}
	return p.postBlob(ctx, digest, bytes.NewReader(b), int64(len(b)))
}

func (p *pusher) postBlob(ctx context.Context, digest string, body io.Reader, size int64) error {
	u := p.base + "/blobs/uploads/?digest=" + url.QueryEscape(digest)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, body)
	if err != nil {
		return err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := p.do(req)
	if err != nil {
		return fmt.Errorf("upload blob %s: %w", digest, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("upload blob %s: %s: %s", digest, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// pushManifest stores the manifest under reference (a tag or its digest).
func (p *pusher) pushManifest(ctx context.Context, reference, mediaType string, b []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, p.base+"/manifests/"+reference, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mediaType)
	resp, err := p.do(req)
	if err != nil {
		return fmt.Errorf("put manifest %s: %w", reference, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("put manifest %s: %s: %s", reference, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
