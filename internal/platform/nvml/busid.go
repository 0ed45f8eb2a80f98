package nvml

import (
	"fmt"

	"github.com/everycycle/appraise/internal/platform/pci"
)

// ToNVMLBusID converts a bus address in any form pci.ParseBDF accepts to the
// form NVML uses, "00000000:00:06.0". The error wraps pci.ErrBadBDF.
func ToNVMLBusID(bdf string) (string, error) {
	b, err := pci.ParseBDF(bdf)
	if err != nil {
		return "", fmt.Errorf("nvml: bus id: %w", err)
	}
	return fmt.Sprintf("%08X:%02X:%02X.%d", b.Domain, b.Bus, b.Device, b.Function), nil
}

// FromNVMLBusID converts NVML's bus id to the sysfs form; errors wrap pci.ErrBadBDF.
func FromNVMLBusID(id string) (string, error) {
	b, err := pci.ParseBDF(id)
	if err != nil {
		return "", fmt.Errorf("nvml: bus id: %w", err)
	}
	return b.String(), nil
}
