package appraisal

import (
	"strings"
	"testing"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

func TestAddAppendsListsAndSetsSectionsOnce(t *testing.T) {
	v := &schema.CapabilityVector{}
	bw := schema.Bandwidth{Kernel: "copy"}
	h2d := &schema.Transfer{TransferBytes: 1 << 20}
	a := &probe.Contribution{
		Precisions: []schema.PrecisionThroughput{{Operation: "fma", InputType: "fp32"}},
		Bandwidth:  []schema.Bandwidth{bw},
		Usable:     &probe.Usable{Bytes: 1 << 30, LimitedBy: "memory-limit"},
		Probes:     []schema.ProbeRecord{{Name: "x", Version: "1"}},
	}
	b := &probe.Contribution{
		Precisions:   []schema.PrecisionThroughput{{Operation: "fma", InputType: "fp64"}},
		Bandwidth:    []schema.Bandwidth{{Kernel: "read"}},
		HostToDevice: h2d,
		Skipped:      []schema.Skip{{Probe: "x", Item: "fp8", Reason: "r"}},
		Probes:       []schema.ProbeRecord{{Name: "x", Version: "1"}, {Name: "y", Version: "2"}},
	}
	for _, c := range []*probe.Contribution{a, nil, b} {
		if err := add(v, c); err != nil {
			t.Fatal(err)
		}
	}
	if len(v.Precisions) != 2 || len(v.Memory.Bandwidth) != 2 || len(v.Skipped) != 1 {
		t.Errorf("lists: %d precisions, %d bandwidth, %d skipped; want 2, 2, 1", len(v.Precisions), len(v.Memory.Bandwidth), len(v.Skipped))
	}
	if *v.Memory.UsableBytes != 1<<30 || v.Memory.UsableLimitedBy != "memory-limit" || v.Interconnect.HostToDevice != h2d {
		t.Errorf("sections not set: %+v %+v", v.Memory, v.Interconnect)
	}
	if len(v.Probes) != 2 || v.Probes[1].Name != "y" {
		t.Errorf("probes %+v, want x and y once each", v.Probes)
	}
	for name, c := range map[string]*probe.Contribution{
		"usable memory":  {Usable: &probe.Usable{Bytes: 1}},
		"host to device": {HostToDevice: h2d},
		"host baseline":  {HostBaseline: &schema.HostBaseline{}},
	} {
		if err := add(v, c); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("second %s: err %v, want one naming it", name, err)
		}
	}
}
