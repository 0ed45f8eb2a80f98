package nvml

import (
	"fmt"

	"github.com/everycycle/appraise/internal/platform/pci"
)

// ToNVMLBusID converts a PCI bus address to the form NVML reports and
// accepts: an 8-hex-digit domain and upper-case hex, "00000000:00:06.0" for
// sysfs's "0000:00:06.0". It accepts every form pci.ParseBDF does (4 to 8
// domain digits, either case, or no domain for 0000). The error wraps
// pci.ErrBadBDF.
func ToNVMLBusID(bdf string) (string, error) {
	b, err := pci.ParseBDF(bdf)
	if err != nil {
		return "", fmt.Errorf("nvml: bus id: %w", err)
	}
	return fmt.Sprintf("%08X:%02X:%02X.%d", b.Domain, b.Bus, b.Device, b.Function), nil
}

// FromNVMLBusID converts NVML's bus id ("00000000:00:06.0", upper-case hex)
// to the Linux sysfs form appraise uses everywhere else ("0000:00:06.0":
// lower case, domain of at least 4 digits). The error wraps pci.ErrBadBDF.
func FromNVMLBusID(id string) (string, error) {
	b, err := pci.ParseBDF(id)
	if err != nil {
		return "", fmt.Errorf("nvml: bus id: %w", err)
	}
	return b.String(), nil
}
