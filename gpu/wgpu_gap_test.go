package gpu

import (
	"errors"
	"strings"
	"testing"
)

// TestRequestedLimitsArrive checks the C declarations of wgpu_gap.go: the
// limits requested through them are the limits the device reports.
func TestRequestedLimitsArrive(t *testing.T) {
	d := newDevice(t)
	want := wantedLimits(d.adapter.GetLimits().Limits, d.memLimit)
	got := d.dev.GetLimits().Limits
	if got.MaxBufferSize != want.MaxBufferSize || got.MaxStorageBufferBindingSize != want.MaxStorageBufferBindingSize {
		t.Errorf("buffer limits: got %d / %d, want %d / %d", got.MaxBufferSize, got.MaxStorageBufferBindingSize,
			want.MaxBufferSize, want.MaxStorageBufferBindingSize)
	}
	if got.MaxComputeInvocationsPerWorkgroup != want.MaxComputeInvocationsPerWorkgroup ||
		got.MaxComputeWorkgroupsPerDimension != want.MaxComputeWorkgroupsPerDimension ||
		got.MaxComputeWorkgroupStorageSize != want.MaxComputeWorkgroupStorageSize ||
		got.MaxStorageBuffersPerShaderStage != want.MaxStorageBuffersPerShaderStage {
		t.Errorf("compute limits: got %+v, want %+v", got, want)
	}
	if d.adapter.HasFeature(0x3) != d.Features().TimestampQuery { // FeatureNameTimestampQuery
		t.Errorf("timestamp feature offered %t but device has %t", !d.Features().TimestampQuery, d.Features().TimestampQuery)
	}
}

// TestUncapturedErrorIsReturned: an error outside any error scope, which
// wgpu-native would otherwise treat as fatal, is returned by the next wait.
func TestUncapturedErrorIsReturned(t *testing.T) {
	d := newDevice(t)
	d.provokeUncapturedError()
	err := d.submitWait()
	if err == nil || !strings.Contains(err.Error(), "uncaptured") {
		t.Fatalf("submitWait after an uncaptured error: %v", err)
	}
	if _, err := d.emptyRoundTripS(t.Context(), 2); err == nil {
		t.Error("a probe ran on a device with an uncaptured error")
	}
}

// TestDeviceLostIsReturned: once the lost callback has fired, every wait
// and probe fails with ErrDeviceLost instead of aborting. (The callback is
// fired by hand: wgpuDeviceDestroy does not lose the device in this
// wgpu-native.)
func TestDeviceLostIsReturned(t *testing.T) {
	d := newDevice(t)
	d.sink.markLost("test: device reset")
	if err := d.submitWait(); !errors.Is(err, ErrDeviceLost) {
		t.Fatalf("submitWait on a lost device: %v, want ErrDeviceLost", err)
	}
	if _, err := MeasureBandwidthKernels(t.Context(), d, nil); !errors.Is(err, ErrDeviceLost) {
		t.Errorf("MeasureBandwidthKernels on a lost device: %v, want ErrDeviceLost", err)
	}
	if _, err := d.emptyRoundTripS(t.Context(), 2); !errors.Is(err, ErrDeviceLost) {
		t.Errorf("emptyRoundTripS on a lost device: %v, want ErrDeviceLost", err)
	}
}
