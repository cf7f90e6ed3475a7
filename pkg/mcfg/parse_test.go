package mcfg

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRaw(t *testing.T) {
	cases := []struct {
		name    string
		raw     string
		wantErr string
		check   func(t *testing.T, files int, version string)
	}{
		{name: "no config is an empty config", raw: "", check: func(t *testing.T, files int, v string) {
			if files != 0 || v != "3.5.0" {
				t.Errorf("files=%d version=%s, want 0 and 3.5.0", files, v)
			}
		}},
		{name: "spec 3.2 is translated to 3.5", raw: fileIgn("3.2.0", "/etc/a", "x"), check: func(t *testing.T, files int, v string) {
			if files != 1 || v != "3.5.0" {
				t.Errorf("files=%d version=%s, want 1 and 3.5.0", files, v)
			}
		}},
		{name: "spec 3.5 as is", raw: fileIgn("3.5.0", "/etc/a", "x"), check: func(t *testing.T, files int, v string) {
			if files != 1 {
				t.Errorf("files=%d, want 1", files)
			}
		}},
		{name: "spec 2.2 is converted to 3.5", raw: `{"ignition":{"version":"2.2.0"},"storage":{"files":[{"filesystem":"root","path":"/etc/a","contents":{"source":"data:,a"}}]}}`,
			check: func(t *testing.T, files int, version string) {
				if files != 1 || version != "3.5.0" {
					t.Errorf("got %d files, version %s; want 1 file, 3.5.0", files, version)
				}
			}},
		{name: "experimental spec is rejected", raw: `{"ignition":{"version":"3.6.0-experimental"}}`, wantErr: "unsupported config version"},
		{name: "not JSON", raw: `{"ignition":`, wantErr: "parsing Ignition config"},
		{name: "missing version", raw: `{}`, wantErr: "invalid config version"},
		{name: "relative file path", raw: fileIgn("3.4.0", "etc/a", "x"), wantErr: "config is not valid"},
		{name: "setuid mode", raw: `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/usr/local/bin/x","mode":2541}]}}`, wantErr: "invalid mode"},
		{name: "duplicate file", raw: `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/a"},{"path":"/a"}]}}`, wantErr: "duplicate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseRaw([]byte(tc.raw))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			tc.check(t, len(cfg.Storage.Files), cfg.Ignition.Version)
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name    string
		kernel  string
		raw     string
		wantErr string
	}{
		{name: "valid", raw: fileIgn("3.4.0", "/etc/a", "x")},
		{name: "kernel type realtime", kernel: "realtime"},
		{name: "kernel type 64k-pages", kernel: "64k-pages"},
		{name: "unknown kernel type", kernel: "rt", wantErr: "kernelType=rt is invalid"},
		{name: "ignition kargs shouldNotExist", raw: `{"ignition":{"version":"3.4.0"},"kernelArguments":{"shouldNotExist":["quiet"]}}`, wantErr: "shouldNotExist"},
		{name: "ignition kargs shouldExist are fine", raw: `{"ignition":{"version":"3.4.0"},"kernelArguments":{"shouldExist":["quiet"]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := mc("99-x", "worker", tc.raw)
			m.Spec.KernelType = tc.kernel
			err := Validate(m)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ie *InvalidConfigError
			if !errors.As(err, &ie) || ie.Name != "99-x" || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want *InvalidConfigError for 99-x containing %q", err, tc.wantErr)
			}
		})
	}
}
