package appraisal

import (
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/schema"
)

// TestAbsentReasonsTrue: every reason the run gives for an absent part
// follows from what the run did, and a part absent for no reason the run
// knows fails the run instead of signing a generic one.
func TestAbsentReasonsTrue(t *testing.T) {
	zero, soak := time.Duration(0), 2*time.Second
	ambient := 21.0
	gpuDev := Candidate{Addr: "0000:01:00.0", vulkanWhy: "no raw-Vulkan device matches this adapter"}
	for _, tc := range []struct {
		name  string
		c     Candidate
		o     Options
		v     schema.CapabilityVector
		field string
		want  string // "" when the run does not explain it
	}{
		{"no soak asked", gpuDev, Options{Soak: &zero}, schema.CapabilityVector{}, "thermal", reasonNoSoak},
		{"soak asked but absent", gpuDev, Options{Soak: &soak}, schema.CapabilityVector{}, "thermal", ""},
		{"roofline absent, probe silent", gpuDev, Options{}, schema.CapabilityVector{}, "roofline", ""},
		{"cross-check absent, plan silent", gpuDev, Options{}, schema.CapabilityVector{}, "cross_checks", ""},
		{"no Vulkan match", gpuDev, Options{}, schema.CapabilityVector{}, "identity.bus_address", "no raw-Vulkan device matches"},
		{"no telemetry", gpuDev, Options{}, schema.CapabilityVector{Thermal: &schema.ThermalEnvelope{Telemetry: "none"}}, "thermal.sustained_power_w", "neither NVML nor a hwmon"},
		{"NVML without power", gpuDev, Options{}, schema.CapabilityVector{Thermal: &schema.ThermalEnvelope{Telemetry: "nvml"}}, "thermal.sustained_power_w", "nvml gave no power reading"},
		{"no ambient", gpuDev, Options{}, schema.CapabilityVector{}, "environment.ambient_c", reasonNoAmbient},
		{"ambient given yet absent", gpuDev, Options{AmbientC: &ambient}, schema.CapabilityVector{}, "environment.ambient_c", ""},
		{"precisions all skipped", gpuDev, Options{}, schema.CapabilityVector{Skipped: []schema.Skip{{Probe: "webgpu-alu", Item: "fma fp16", Reason: "x"}}}, "precisions", "see skipped"},
		{"precisions absent, nothing skipped", gpuDev, Options{}, schema.CapabilityVector{}, "precisions", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := absentReason(tc.field, tc.c, tc.o, &tc.v)
			if tc.want == "" {
				if ok {
					t.Fatalf("explained as %q, want no reason", got)
				}
				return
			}
			if !ok || !strings.Contains(got, tc.want) {
				t.Fatalf("reason %q (%t), want one containing %q", got, ok, tc.want)
			}
		})
	}
	v := schema.CapabilityVector{}
	if _, err := notYetMeasured(gpuDev, Options{Soak: &soak}, &v); err == nil || !strings.Contains(err.Error(), "nothing in this run says why") {
		t.Errorf("an unexplained absence: %v", err)
	}
}
