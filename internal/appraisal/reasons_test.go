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
	soak := 2 * time.Second
	ambient := 21.0
	gpuDev := Candidate{Addr: "0000:01:00.0", vulkanWhy: "no raw-Vulkan device matches this adapter"}
	for _, tc := range []struct {
		name  string
		c     Candidate
		p     DevicePlan
		v     schema.CapabilityVector
		field string
		want  string // "" when the run does not explain it
	}{
		{"no soak asked", gpuDev, DevicePlan{}, schema.CapabilityVector{}, "thermal", reasonNoSoak},
		{"soak asked but absent", gpuDev, DevicePlan{soak: soak}, schema.CapabilityVector{}, "thermal", ""},
		{"roofline absent, probe silent", gpuDev, DevicePlan{}, schema.CapabilityVector{}, "roofline", ""},
		{"cross-check absent, plan silent", gpuDev, DevicePlan{}, schema.CapabilityVector{}, "cross_checks", ""},
		{"no Vulkan match", gpuDev, DevicePlan{}, schema.CapabilityVector{}, "identity.bus_address", "no raw-Vulkan device matches"},
		{"no Vulkan match, no host link", gpuDev, DevicePlan{}, schema.CapabilityVector{}, "interconnect.host_to_device", "no raw-Vulkan device matches"},
		{"no Vulkan match, no launch", gpuDev, DevicePlan{}, schema.CapabilityVector{}, "launch_overhead", "no raw-Vulkan device matches"},
		{"no telemetry", gpuDev, DevicePlan{}, schema.CapabilityVector{Thermal: &schema.ThermalEnvelope{Telemetry: "none"}}, "thermal.sustained_power_w", "neither NVML nor a hwmon"},
		{"NVML without power", gpuDev, DevicePlan{}, schema.CapabilityVector{Thermal: &schema.ThermalEnvelope{Telemetry: "nvml"}}, "thermal.sustained_power_w", "nvml gave no power reading"},
		{"no ambient", gpuDev, DevicePlan{}, schema.CapabilityVector{}, "environment.ambient_c", reasonNoAmbient},
		{"ambient given yet absent", gpuDev, DevicePlan{}, schema.CapabilityVector{Environment: schema.ProbeEnvironment{AmbientC: &ambient}}, "environment.ambient_c", ""},
		{"precisions all skipped", gpuDev, DevicePlan{}, schema.CapabilityVector{Skipped: []schema.Skip{{Probe: "fma-fp16", Item: "fma fp16", Reason: "x"}}}, "precisions", "see skipped"},
		{"precisions absent, nothing skipped", gpuDev, DevicePlan{}, schema.CapabilityVector{}, "precisions", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := absentReason(tc.field, tc.c, tc.p, &tc.v)
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
	if _, err := notYetMeasured(gpuDev, DevicePlan{soak: soak}, &v); err == nil || !strings.Contains(err.Error(), "nothing in this run says why") {
		t.Errorf("an unexplained absence: %v", err)
	}
}
