package mcfg

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

func TestMergeSpecFields(t *testing.T) {
	set := func(f func(*mcfgv1.MachineConfigSpec)) func(*mcfgv1.MachineConfigSpec) { return f }
	cases := []struct {
		name     string
		configs  []*mcfgv1.MachineConfig
		defaults Defaults
		want     func(*testing.T, mcfgv1.MachineConfigSpec)
	}{
		{
			name: "last non-empty osImageURL in name order wins over the default",
			configs: []*mcfgv1.MachineConfig{
				mc("99-b", "worker", "", set(func(s *mcfgv1.MachineConfigSpec) { s.OSImageURL = "img-b" })),
				mc("00-a", "worker", "", set(func(s *mcfgv1.MachineConfigSpec) { s.OSImageURL = "img-a" })),
				mc("50-none", "worker", ""),
			},
			defaults: Defaults{OSImageURL: "img-default"},
			want: func(t *testing.T, s mcfgv1.MachineConfigSpec) {
				if s.OSImageURL != "img-b" {
					t.Errorf("OSImageURL = %q, want img-b", s.OSImageURL)
				}
			},
		},
		{
			name:     "default osImageURL when no config sets one",
			configs:  []*mcfgv1.MachineConfig{mc("00-a", "worker", "")},
			defaults: Defaults{OSImageURL: "img-default", BaseOSExtensionsContainerImage: "ext-default"},
			want: func(t *testing.T, s mcfgv1.MachineConfigSpec) {
				if s.OSImageURL != "img-default" || s.BaseOSExtensionsContainerImage != "ext-default" {
					t.Errorf("got %q/%q, want defaults", s.OSImageURL, s.BaseOSExtensionsContainerImage)
				}
			},
		},
		{
			name: "kernel arguments appended in order, duplicates kept; ignition kernelArguments stay in the ignition (MCO)",
			configs: []*mcfgv1.MachineConfig{
				mc("10-b", "worker", `{"ignition":{"version":"3.4.0"},"kernelArguments":{"shouldExist":["quiet","nosmt"]}}`,
					set(func(s *mcfgv1.MachineConfigSpec) { s.KernelArguments = []string{"hugepagesz=2M", "hugepages=4"} })),
				mc("00-a", "worker", "", set(func(s *mcfgv1.MachineConfigSpec) {
					s.KernelArguments = []string{"hugepagesz=1G", "hugepages=4", "nosmt"}
				})),
			},
			want: func(t *testing.T, s mcfgv1.MachineConfigSpec) {
				want := []string{"hugepagesz=1G", "hugepages=4", "nosmt", "hugepagesz=2M", "hugepages=4"}
				if !reflect.DeepEqual(s.KernelArguments, want) {
					t.Errorf("KernelArguments = %v, want %v", s.KernelArguments, want)
				}
			},
		},
		{
			name: "fips if any, extensions appended",
			configs: []*mcfgv1.MachineConfig{
				mc("00-a", "worker", "", set(func(s *mcfgv1.MachineConfigSpec) { s.Extensions = []string{"usbguard"} })),
				mc("01-b", "worker", "", set(func(s *mcfgv1.MachineConfigSpec) { s.FIPS = true; s.Extensions = []string{"ipsec"} })),
				mc("02-c", "worker", ""),
			},
			want: func(t *testing.T, s mcfgv1.MachineConfigSpec) {
				if !s.FIPS || !reflect.DeepEqual(s.Extensions, []string{"usbguard", "ipsec"}) {
					t.Errorf("FIPS=%v Extensions=%v", s.FIPS, s.Extensions)
				}
			},
		},
		{
			name: "last non-default kernel type wins",
			configs: []*mcfgv1.MachineConfig{
				mc("00-a", "worker", "", set(func(s *mcfgv1.MachineConfigSpec) { s.KernelType = "realtime" })),
				mc("01-b", "worker", "", set(func(s *mcfgv1.MachineConfigSpec) { s.KernelType = "default" })),
			},
			want: func(t *testing.T, s mcfgv1.MachineConfigSpec) {
				if s.KernelType != "realtime" {
					t.Errorf("KernelType = %q, want realtime", s.KernelType)
				}
			},
		},
		{
			name:    "kernel type defaults to default",
			configs: []*mcfgv1.MachineConfig{mc("00-a", "worker", "")},
			want: func(t *testing.T, s mcfgv1.MachineConfigSpec) {
				if s.KernelType != "default" || s.KernelArguments == nil || s.Extensions == nil {
					t.Errorf("KernelType=%q kargs=%v ext=%v", s.KernelType, s.KernelArguments, s.Extensions)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MergeWithDefaults(tc.configs, tc.defaults)
			if err != nil {
				t.Fatalf("merge: %v", err)
			}
			tc.want(t, got.Spec)
		})
	}
}

func TestMergeIgnition(t *testing.T) {
	configs := []*mcfgv1.MachineConfig{
		// A custom pool's config sorts before the worker ones by name but must override them.
		mc("00-custom", "infra", fileIgn("3.4.0", "/etc/shared", "custom")),
		mc("10-worker", "worker", fileIgn("3.2.0", "/etc/shared", "worker")),
		mc("20-worker", "worker", `{"ignition":{"version":"3.4.0"},"systemd":{"units":[{"name":"a.service","enabled":true}]},"storage":{"files":[{"path":"/etc/keep","overwrite":false,"contents":{"source":"data:,k"}},{"path":"/etc/empty","contents":{"source":"data:,"}}]}}`),
		mc("30-worker", "worker", `{"ignition":{"version":"3.4.0"},"kernelArguments":{"shouldExist":["quiet"]}}`),
	}
	before := []string{configs[0].Name, configs[1].Name, configs[2].Name, configs[3].Name}
	got, err := Merge(configs)
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	for i, name := range before {
		if configs[i].Name != name {
			t.Fatalf("Merge reordered its input")
		}
	}
	cfg := decode(t, got)
	if cfg.Ignition.Version != "3.5.0" {
		t.Errorf("version = %s, want 3.5.0", cfg.Ignition.Version)
	}
	files := map[string]string{}
	overwrite := map[string]*bool{}
	for _, f := range cfg.Storage.Files {
		src := ""
		if f.Contents.Source != nil {
			src = *f.Contents.Source
		}
		files[f.Path] = src
		overwrite[f.Path] = f.Overwrite
	}
	if files["/etc/shared"] != "data:,custom" {
		t.Errorf("/etc/shared = %q, want the custom pool's content", files["/etc/shared"])
	}
	if o := overwrite["/etc/shared"]; o == nil || !*o {
		t.Errorf("/etc/shared overwrite = %v, want defaulted to true", o)
	}
	if o := overwrite["/etc/keep"]; o == nil || *o {
		t.Errorf("/etc/keep overwrite = %v, want the explicit false kept", o)
	}
	if o := overwrite["/etc/empty"]; o == nil || !*o {
		t.Errorf("/etc/empty overwrite = %v, want defaulted to true", o)
	}
	if len(cfg.Systemd.Units) != 1 || cfg.Systemd.Units[0].Name != "a.service" {
		t.Errorf("units = %+v", cfg.Systemd.Units)
	}
	// As in the MCO: Ignition kernel arguments stay where they were written.
	if len(cfg.KernelArguments.ShouldExist) != 1 || cfg.KernelArguments.ShouldExist[0] != "quiet" {
		t.Errorf("ignition kargs = %v, want [quiet] kept in the merged ignition", cfg.KernelArguments.ShouldExist)
	}
	if len(got.Spec.KernelArguments) != 0 {
		t.Errorf("KernelArguments = %v, want none", got.Spec.KernelArguments)
	}
	if _, err := ParseRaw(got.Spec.Config.Raw); err != nil {
		t.Errorf("the merged config does not parse back: %v", err)
	}
}

func TestMergeErrors(t *testing.T) {
	cases := []struct {
		name        string
		configs     []*mcfgv1.MachineConfig
		wantInvalid string // name of the MachineConfig reported, "" for a merge-level error
		wantErr     string
	}{
		{name: "nothing to merge", wantErr: "no MachineConfigs"},
		{
			name:        "invalid ignition names the config",
			configs:     []*mcfgv1.MachineConfig{mc("00-ok", "worker", ""), mc("50-bad", "worker", `{"ignition":{"version":"9.9.9"}}`)},
			wantInvalid: "50-bad", wantErr: "unsupported config version",
		},
		{
			// The MCO gives every file without overwrite overwrite=true, which
			// Ignition refuses for a file without contents: its daemon and new
			// nodes would fail on the result, so tandem refuses to render it.
			name:    "a file without contents and without overwrite cannot be rendered",
			configs: []*mcfgv1.MachineConfig{mc("00-ok", "worker", `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/empty"}]}}`)},
			wantErr: "overwrite must be false if source is unspecified",
		},
		{
			name: "kernel-devel needs the default kernel",
			configs: []*mcfgv1.MachineConfig{
				mc("00-rt", "worker", "", func(s *mcfgv1.MachineConfigSpec) { s.KernelType = "realtime" }),
				mc("01-kd", "worker", "", func(s *mcfgv1.MachineConfigSpec) { s.Extensions = []string{"kernel-devel"} }),
			},
			wantErr: "kernel-devel",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.configs)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
			}
			var ie *InvalidConfigError
			if got := errors.As(err, &ie); got != (tc.wantInvalid != "") || (got && ie.Name != tc.wantInvalid) {
				t.Fatalf("InvalidConfigError = %v (%+v), want name %q", got, ie, tc.wantInvalid)
			}
		})
	}
}

func TestSortForMerge(t *testing.T) {
	in := []*mcfgv1.MachineConfig{mc("99-w", "worker", ""), mc("00-infra", "infra", ""), mc("01-w", "worker", ""), mc("50-infra", "infra", "")}
	var got []string
	for _, m := range SortForMerge(in) {
		got = append(got, m.Name)
	}
	want := []string{"01-w", "99-w", "00-infra", "50-infra"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}
