package nvml

import (
	"errors"
	"math"
	"os"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/platform/thermal"
)

// TestOnHardware reads every NVIDIA GPU of the host through the real NVML.
// It skips where NVML is unavailable (no library or no driver: nothing to
// read, and TestOpenWithoutLibrary covers that path). On a GPU host build
// and run it with
//
//	go test -c -o bin/nvml.test ./internal/platform/nvml/
//	bin/nvml.test -test.run OnHardware -test.v
//
// to print each card's identity and two samples.
func TestOnHardware(t *testing.T) {
	l, err := Open()
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("no NVML here: %v", err)
	}
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer l.Close()
	drv, err := l.DriverVersion()
	if err != nil {
		t.Fatalf("DriverVersion: %v", err)
	}
	cuda, err := l.CUDADriverVersion()
	if err != nil {
		t.Fatalf("CUDADriverVersion: %v", err)
	}
	t.Logf("driver %s, CUDA %s", drv, cuda)
	ids, err := l.BusIDs()
	if err != nil {
		t.Fatalf("BusIDs: %v", err)
	}
	if len(ids) == 0 {
		t.Fatal("NVML loaded but lists no device")
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) { checkHardwareDevice(t, l, id) })
	}
}

// checkHardwareDevice prints and checks one card's identity and samples.
func checkHardwareDevice(t *testing.T, l *Lib, bdf string) {
	d, err := l.DeviceByBusID(bdf)
	if err != nil {
		t.Fatalf("DeviceByBusID: %v", err)
	}
	id, err := d.Identity()
	if err != nil {
		t.Fatalf("Identity: %v", err)
	}
	t.Logf("identity: %+v", id)
	t.Logf("vbios hash (%s): %s", VBIOSHashSource, VBIOSHash(id.VBIOSVersion))
	if id.BusID != bdf || id.PCIDeviceID&0xffff != 0x10de || id.Name == "" {
		t.Errorf("identity does not name an NVIDIA card at %s: %+v", bdf, id)
	}
	checkHardwareUsers(t, d)
	for i := range 2 {
		if i > 0 {
			time.Sleep(500 * time.Millisecond)
		}
		s, err := d.Sample()
		if err != nil {
			t.Fatalf("Sample: %v", err)
		}
		t.Logf("sample %d: %+v", i, s)
		checkSample(t, s)
	}
}

// checkHardwareUsers prints the processes on a card and its utilization,
// what the appraisal's watch for other users reads (internal/platform/
// occupancy). This test holds no context, so its own pid is not listed.
func checkHardwareUsers(t *testing.T, d *Device) {
	ps, err := d.Processes()
	if err != nil {
		t.Errorf("Processes: %v", err)
	}
	t.Logf("processes (this test is pid %d): %+v", os.Getpid(), ps)
	u, err := d.UtilizationPercent()
	if err != nil || u < 0 || u > 100 {
		t.Errorf("UtilizationPercent = %v, %v", u, err)
	}
	t.Logf("utilization %v %%", u)
}

// checkSample fails readings that are present but impossible.
func checkSample(t *testing.T, s thermal.Sample) {
	t.Helper()
	if _, ok := s.Missing[thermal.FieldTemperatureC]; !ok && (s.TemperatureC <= 0 || s.TemperatureC > 130) {
		t.Errorf("temperature %v °C", s.TemperatureC)
	}
	if _, ok := s.Missing[thermal.FieldPowerW]; !ok && (math.IsNaN(s.PowerW) || s.PowerW <= 0 || s.PowerW > 2000) {
		t.Errorf("power %v W", s.PowerW)
	}
	if _, ok := s.Missing[thermal.FieldSMClockMHz]; !ok && s.SMClockMHz == 0 {
		t.Error("SM clock 0 MHz")
	}
}
