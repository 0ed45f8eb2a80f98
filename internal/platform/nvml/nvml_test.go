package nvml

import (
	"errors"
	"strings"
	"testing"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

var errLoaderForTest = errors.New("libnvidia-ml.so.1: cannot open shared object file: No such file or directory")

// TestOpenWithoutLibrary runs on hosts without NVML, like the development
// machine and CI; on a GPU host TestOnHardware covers Open instead.
func TestOpenWithoutLibrary(t *testing.T) {
	l, err := Open()
	if err == nil {
		_ = l.Close()
		t.Skip("NVML is present on this host; TestOnHardware covers it")
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Open() error = %v; want ErrUnavailable", err)
	}
	if !strings.Contains(err.Error(), LibraryName) {
		t.Errorf("Open() error = %q; want the loader's message naming %s", err, LibraryName)
	}
	t.Logf("Open() = %v", err)
}

func TestOpenFailures(t *testing.T) {
	cases := []struct {
		ret         gonvml.Return
		unavailable bool
		want        string
	}{
		{gonvml.ERROR_LIBRARY_NOT_FOUND, true, "cannot open shared object file"},
		{gonvml.ERROR_DRIVER_NOT_LOADED, true, "nvmlInit"},
		{gonvml.ERROR_NO_PERMISSION, false, "nvmlInit"},
	}
	for _, c := range cases {
		a := fakeAPI(nil)
		a.InitFunc = func() gonvml.Return { return c.ret }
		l, err := open(a, noLoader)
		if l != nil || err == nil {
			t.Fatalf("open with Init = %v: got a Lib", c.ret)
		}
		if errors.Is(err, ErrUnavailable) != c.unavailable || !strings.Contains(err.Error(), c.want) {
			t.Errorf("open with Init = %v: %v; want ErrUnavailable %v and %q", c.ret, err, c.unavailable, c.want)
		}
		if n := len(a.ShutdownCalls()); n != 0 {
			t.Errorf("open with Init = %v: %d Shutdown calls after a failed Init", c.ret, n)
		}
	}
}

func TestCloseTwice(t *testing.T) {
	a := fakeAPI(fakeH200())
	l, err := open(a, noLoader)
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.DeviceByBusID("0000:00:06.0")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if n := len(a.ShutdownCalls()); n != 1 {
		t.Errorf("%d Shutdown calls; want 1", n)
	}
	if _, err := d.Sample(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sample after Close: %v; want ErrClosed", err)
	}
	if _, err := d.Identity(); !errors.Is(err, ErrClosed) {
		t.Errorf("Identity after Close: %v; want ErrClosed", err)
	}
	if _, err := l.DriverVersion(); !errors.Is(err, ErrClosed) {
		t.Errorf("DriverVersion after Close: %v; want ErrClosed", err)
	}
}

func TestCloseReportsShutdownFailure(t *testing.T) {
	a := fakeAPI(nil)
	a.ShutdownFunc = func() gonvml.Return { return gonvml.ERROR_UNKNOWN }
	l, err := open(a, noLoader)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err == nil || !strings.Contains(err.Error(), "nvmlShutdown") {
		t.Errorf("Close: %v; want the nvmlShutdown failure", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v; want nil", err)
	}
}

func TestDeviceByBusID(t *testing.T) {
	a := fakeAPI(fakeH200())
	l, err := open(a, noLoader)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d, err := l.DeviceByBusID("0000:00:06.0")
	if err != nil {
		t.Fatal(err)
	}
	if d.BusID() != "0000:00:06.0" {
		t.Errorf("BusID() = %q", d.BusID())
	}
	if got := a.DeviceGetHandleByPciBusIdCalls()[0].S; got != h200BusID {
		t.Errorf("NVML asked for %q; want %q", got, h200BusID)
	}
	if _, err := l.DeviceByBusID("0000:00:07.0"); !errors.Is(err, ErrNotFound) {
		t.Errorf("absent device: %v; want ErrNotFound", err)
	}
	if _, err := l.DeviceByBusID("00:06"); err == nil {
		t.Error("malformed bus id: no error")
	}
}

func TestBusIDs(t *testing.T) {
	l, err := open(fakeAPI(fakeH200()), noLoader)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ids, err := l.BusIDs()
	if err != nil || len(ids) != 1 || ids[0] != "0000:00:06.0" {
		t.Errorf("BusIDs() = %q, %v; want [0000:00:06.0]", ids, err)
	}
}

func TestDriverVersions(t *testing.T) {
	l, err := open(fakeAPI(nil), noLoader)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if v, err := l.DriverVersion(); err != nil || v != "580.159.04" {
		t.Errorf("DriverVersion() = %q, %v", v, err)
	}
	if v, err := l.CUDADriverVersion(); err != nil || v != "13.0" {
		t.Errorf("CUDADriverVersion() = %q, %v", v, err)
	}
}

func TestFormatCUDAVersion(t *testing.T) {
	for n, want := range map[int]string{13000: "13.0", 12040: "12.4", 11080: "11.8", 12010: "12.1", 10020: "10.2"} {
		if got := formatCUDAVersion(n); got != want {
			t.Errorf("formatCUDAVersion(%d) = %q; want %q", n, got, want)
		}
	}
}

func TestErrorIs(t *testing.T) {
	cases := []struct {
		ret  gonvml.Return
		want error
	}{
		{gonvml.ERROR_NOT_FOUND, ErrNotFound},
		{gonvml.ERROR_NOT_SUPPORTED, ErrNotSupported},
		{gonvml.ERROR_GPU_IS_LOST, ErrGPULost},
	}
	for _, c := range cases {
		err := error(newError("nvmlX", c.ret))
		if !errors.Is(err, c.want) {
			t.Errorf("%v is not %v", err, c.want)
		}
		if errors.Is(err, ErrUnavailable) {
			t.Errorf("%v is ErrUnavailable", err)
		}
	}
	if got := newError("nvmlDeviceGetSerial", gonvml.ERROR_NOT_SUPPORTED).Error(); got != "nvml: nvmlDeviceGetSerial: ERROR_NOT_SUPPORTED" {
		t.Errorf("Error() = %q", got)
	}
}
