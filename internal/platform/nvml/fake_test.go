package nvml

import (
	"testing"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// h200BusID is NVML's bus id of the project's H200.
const h200BusID = "00000000:00:06.0"

// fakeH200 returns a mock device that answers every query this package
// makes the way the project's H200 does (values from nvidia-smi there,
// serial and UUID made up).
func fakeH200() *mock.Device {
	return &mock.Device{
		GetNameFunc:            func() (string, gonvml.Return) { return "NVIDIA H200", gonvml.SUCCESS },
		GetSerialFunc:          func() (string, gonvml.Return) { return "1650924000001", gonvml.SUCCESS },
		GetUUIDFunc:            func() (string, gonvml.Return) { return "GPU-00000000-1111-2222-3333-444444444444", gonvml.SUCCESS },
		GetVbiosVersionFunc:    func() (string, gonvml.Return) { return "96.00.AF.00.01", gonvml.SUCCESS },
		GetBoardPartNumberFunc: func() (string, gonvml.Return) { return "692-2G530-0250-000", gonvml.SUCCESS },
		GetPciInfoFunc: func() (gonvml.PciInfo, gonvml.Return) {
			p := gonvml.PciInfo{Bus: 0, Device: 6, PciDeviceId: 0x233510de, PciSubSystemId: 0x18bf10de}
			for i, c := range h200BusID {
				p.BusId[i] = int8(c)
			}
			return p, gonvml.SUCCESS
		},
		GetMemoryInfoFunc: func() (gonvml.Memory, gonvml.Return) {
			return gonvml.Memory{Total: 143771 << 20}, gonvml.SUCCESS
		},
		GetTemperatureFunc:        func(gonvml.TemperatureSensors) (uint32, gonvml.Return) { return 41, gonvml.SUCCESS },
		GetPowerUsageFunc:         func() (uint32, gonvml.Return) { return 123456, gonvml.SUCCESS },
		GetEnforcedPowerLimitFunc: func() (uint32, gonvml.Return) { return 700000, gonvml.SUCCESS },
		GetClockInfoFunc: func(c gonvml.ClockType) (uint32, gonvml.Return) {
			if c == gonvml.CLOCK_SM {
				return 1980, gonvml.SUCCESS
			}
			return 3201, gonvml.SUCCESS
		},
		GetCurrentClocksEventReasonsFunc: func() (uint64, gonvml.Return) {
			return ReasonSWPowerCap | ReasonSWThermalSlowdown, gonvml.SUCCESS
		},
	}
}

// fakeAPI returns a mock library that has every symbol and one device,
// dev, at the H200's bus id.
func fakeAPI(dev gonvml.Device) *mock.Interface {
	return &mock.Interface{
		InitFunc:     func() gonvml.Return { return gonvml.SUCCESS },
		ShutdownFunc: func() gonvml.Return { return gonvml.SUCCESS },
		ExtensionsFunc: func() gonvml.ExtendedInterface {
			return &mock.ExtendedInterface{LookupSymbolFunc: func(string) error { return nil }}
		},
		DeviceGetCountFunc: func() (int, gonvml.Return) { return 1, gonvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(i int) (gonvml.Device, gonvml.Return) {
			if i != 0 {
				return nil, gonvml.ERROR_INVALID_ARGUMENT
			}
			return dev, gonvml.SUCCESS
		},
		DeviceGetHandleByPciBusIdFunc: func(id string) (gonvml.Device, gonvml.Return) {
			if id != h200BusID {
				return nil, gonvml.ERROR_NOT_FOUND
			}
			return dev, gonvml.SUCCESS
		},
		SystemGetDriverVersionFunc:     func() (string, gonvml.Return) { return "580.159.04", gonvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, gonvml.Return) { return 13000, gonvml.SUCCESS },
	}
}

// noLoader stands in for the dynamic loader's message in tests.
func noLoader() error { return errLoaderForTest }

// openFake opens a Lib over a and returns the device at the H200's bus id;
// the Lib is closed when the test ends.
func openFake(t *testing.T, a api) *Device {
	t.Helper()
	l, err := open(a, noLoader)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	d, err := l.DeviceByBusID("0000:00:06.0")
	if err != nil {
		t.Fatalf("DeviceByBusID: %v", err)
	}
	return d
}
