package schema_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// sharedWith is the record of an --allow-shared run on a device a bf16
// GEMM process was using before probing began.
func sharedWith() *schema.SharedUse {
	return &schema.SharedUse{
		Checked: true, Methods: []string{schema.SharedNVML}, Allowed: true, OthersFound: true,
		Processes: []schema.SharedProcess{{PID: 4242, Name: "python3", UsedMemoryBytes: ptr(uint64(40 << 30)), Source: schema.SharedNVML}},
		Utilization: []schema.UtilizationSample{
			{AtS: 0, Stage: schema.StageBeforeProbing, GPUPercent: 100, Source: schema.SharedNVML},
			{AtS: 0.2, Stage: schema.StageBeforeProbing, GPUPercent: 99, Source: schema.SharedNVML},
			{AtS: 3.5, Stage: "stream", GPUPercent: 100, Source: schema.SharedNVML},
		},
	}
}

// TestSharedUseRoundTrip: a card recording who else used the device signs
// and reads back the same.
func TestSharedUseRoundTrip(t *testing.T) {
	s := newTestSigner("example")
	p := exampleCard(strings.Repeat("ab", 32))
	p.Capability.Environment.SharedUse = sharedWith()
	data, err := schema.SignCard(p, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"shared_use"`) || !strings.Contains(string(data), `"used_memory_bytes"`) {
		t.Errorf("card lacks shared_use members:\n%s", data)
	}
	got, _, err := schema.ReadCard(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Capability.Environment.SharedUse, p.Capability.Environment.SharedUse) {
		t.Errorf("read back %+v\nwant %+v", got.Capability.Environment.SharedUse, p.Capability.Environment.SharedUse)
	}
}

// TestSharedUseRules: a record that contradicts itself, or other users
// on a card the operator did not let share, is refused.
func TestSharedUseRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*schema.SharedUse)
		want string // "" for valid
	}{
		{"allowed and recorded", func(*schema.SharedUse) {}, ""},
		{"alone", func(s *schema.SharedUse) { s.Allowed, s.OthersFound, s.Processes = false, false, nil }, ""},
		{"busy before probing, no process visible", func(s *schema.SharedUse) { s.Processes = nil }, ""},
		{"software, not checked", func(s *schema.SharedUse) {
			*s = schema.SharedUse{NotCheckedReason: "a software adapter shares the host's CPU"}
		}, ""},
		{"others without --allow-shared", func(s *schema.SharedUse) { s.Allowed = false }, "not allowed to share"},
		{"processes without the verdict", func(s *schema.SharedUse) { s.OthersFound = false }, "others_found is false"},
		{"checked without a method", func(s *schema.SharedUse) { s.Methods = nil }, "needs its methods"},
		{"not checked without a reason", func(s *schema.SharedUse) { *s = schema.SharedUse{} }, "has a reason"},
		{"not checked with findings", func(s *schema.SharedUse) { s.Checked, s.Methods, s.NotCheckedReason = false, nil, "software" }, "no methods or findings"},
		{"found by a method not used", func(s *schema.SharedUse) { s.Processes[0].Source = schema.SharedDRMFdinfo }, "not one of the methods"},
		{"unknown method", func(s *schema.SharedUse) { s.Methods = []string{"ps"} }, "oneof"},
		{"pid 0", func(s *schema.SharedUse) { s.Processes[0].PID = 0 }, "pid"},
		{"over 100 %", func(s *schema.SharedUse) { s.Utilization[0].GPUPercent = 101 }, "gpu_percent"},
		{"negative time", func(s *schema.SharedUse) { s.Processes[0].FirstSeenS = -1 }, "first_seen_s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := exampleCard(strings.Repeat("ab", 32))
			su := sharedWith()
			tc.edit(su)
			p.Capability.Environment.SharedUse = su
			err := schema.Validate(p)
			if tc.want == "" && err != nil {
				t.Fatalf("Validate = %v, want valid", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// TestSharedUseOptional: a card written before shared_use reads without
// it.
func TestSharedUseOptional(t *testing.T) {
	p := exampleCard(strings.Repeat("ab", 32))
	if p.Capability.Environment.SharedUse != nil {
		t.Fatal("the example card already records shared use")
	}
	if err := schema.Validate(p); err != nil {
		t.Fatal(err)
	}
}
