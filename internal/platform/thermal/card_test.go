package thermal

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/everycycle/appraise/schema"
)

// fixed reads a fixed power and temperature and reports a power limit.
type fixed struct {
	powerW, limitW float64
	reads          *atomic.Int32
}

func (f fixed) Source() string { return "nvml" }
func (f fixed) Sample() (Sample, error) {
	f.reads.Add(1)
	return Sample{PowerW: f.powerW, TemperatureC: 60}, nil
}
func (f fixed) PowerLimitW() (float64, error) { return f.limitW, nil }

func steady(n int, gap time.Duration) Soak {
	s := Soak{Workload: "fp32-fma", Probe: "webgpu-soak"}
	for i := 1; i <= n; i++ {
		s.Points = append(s.Points, Point{At: time.Duration(i) * gap, OpsPerS: 5e10})
	}
	s.Duration = s.Points[n-1].At
	return s
}

// TestCardTooShort: too few pieces to judge leave the envelope absent,
// with the reason, and no error.
func TestCardTooShort(t *testing.T) {
	e, absent, err := Card(steady(3, 700*time.Millisecond), nil, nil)
	if err != nil || e != nil || len(absent) != 1 || absent[0].Field != "thermal" || !strings.Contains(absent[0].Reason, "3 pieces") {
		t.Fatalf("envelope %+v, absent %+v, err %v", e, absent, err)
	}
}

// TestCardEnvelope: a steady soak beside telemetry records the power
// limit and the fraction of it drawn, says it did not throttle, names
// the telemetry, and validates.
func TestCardEnvelope(t *testing.T) {
	s := steady(40, 100*time.Millisecond)
	check := schema.Check{Reference: "cpu", Elements: 64, ErrorKind: "relative", MaxError: 1e-3, Tolerance: 1e-2, Passed: true}
	s.Check = &check
	rs := []Reading{{At: 3 * time.Second, PowerW: 630, TemperatureC: 60}, {At: 4 * time.Second, PowerW: 630, TemperatureC: 61}}
	e, absent, err := Card(s, rs, fixed{powerW: 630, limitW: 700, reads: new(atomic.Int32)})
	if err != nil {
		t.Fatal(err)
	}
	if e.Telemetry != "nvml" || e.Throttled || e.PowerLimitW == nil || *e.PowerLimitW != 700 || e.PowerLimitFraction == nil || *e.PowerLimitFraction != 0.9 ||
		e.PeakTemperatureC == nil || *e.PeakTemperatureC != 61 || e.Check != &check || e.Points != 40 || len(e.Timeline) == 0 {
		t.Errorf("envelope %+v", e)
	}
	if len(absent) != 1 || absent[0].Field != "thermal.time_to_throttle_s" {
		t.Errorf("absent %+v", absent)
	}
	if err := schema.Validate(e); err != nil {
		t.Error(err)
	}
	if e, _, err := Card(s, nil, nil); err != nil || e.Telemetry != "none" || e.PowerLimitW != nil || e.SustainedPowerW != nil {
		t.Errorf("without telemetry: %+v, %v", e, err)
	}
}

// TestSampled: the telemetry is read while hold runs, at least once, and
// hold's error comes back with the readings; nil telemetry reads nothing.
func TestSampled(t *testing.T) {
	reads := new(atomic.Int32)
	boom := errors.New("boom")
	rs, err := Sampled(fixed{powerW: 1, reads: reads}, func() error { return boom })
	if !errors.Is(err, boom) || len(rs) == 0 || int(reads.Load()) != len(rs) {
		t.Errorf("%d readings of %d reads, err %v", len(rs), reads.Load(), err)
	}
	rs, err = Sampled(nil, func() error { return nil })
	if err != nil || len(rs) != 0 {
		t.Errorf("nil telemetry: %d readings, err %v", len(rs), err)
	}
}
