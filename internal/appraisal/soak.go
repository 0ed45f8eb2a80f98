package appraisal

import (
	"time"

	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/internal/platform/thermal"
)

// Soak lengths: the default, with --quick, and a software adapter's cap.
const (
	DefaultSoak  = 120 * time.Second
	QuickSoak    = 10 * time.Second
	softwareSoak = 3 * time.Second
)

// nvmlTelemetry reads an NVIDIA device through NVML.
type nvmlTelemetry struct{ d *nvml.Device }

func (t nvmlTelemetry) Source() string                  { return "nvml" }
func (t nvmlTelemetry) PowerLimitW() (float64, error)   { return t.d.PowerLimitW() }
func (t nvmlTelemetry) Sample() (thermal.Sample, error) { return t.d.Sample() }

// hwmonTelemetry reads a device's hwmon sensors; it has no throttle reasons.
type hwmonTelemetry struct{ s *pci.Sensors }

func (t hwmonTelemetry) Source() string                  { return "hwmon" }
func (t hwmonTelemetry) PowerLimitW() (float64, error)   { return t.s.PowerLimitW() }
func (t hwmonTelemetry) Sample() (thermal.Sample, error) { return t.s.Sample() }
