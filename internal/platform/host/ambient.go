package host

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Ambient reads the host's inlet temperature, °C, from the first hwmon channel
// below root labelled "inlet" or "ambient", and returns that channel's input
// file. ok is false when there is none, as on most hosts.
func Ambient(root string) (celsius float64, sensor string, ok bool) {
	labels, _ := filepath.Glob(filepath.Join(rootOr(root), "sys/class/hwmon/hwmon*/temp*_label"))
	for _, l := range labels {
		b, err := os.ReadFile(l)
		name := strings.ToLower(strings.TrimSpace(string(b)))
		if err != nil || !(strings.Contains(name, "inlet") || strings.Contains(name, "ambient")) {
			continue
		}
		input := strings.TrimSuffix(l, "_label") + "_input"
		raw, err := os.ReadFile(input)
		if err != nil {
			continue
		}
		milli, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
		if err != nil {
			continue
		}
		return milli / 1000, input, true
	}
	return 0, "", false
}
