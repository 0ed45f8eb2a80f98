// Package host reads what a box report says of the machine an appraisal runs
// on: its identity (Read) and the memory it may use (ReadMemory). Paths are
// read below a root directory, "" meaning the running system.
package host

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/everycycle/appraise/schema"
)

// Read returns the identity of this host. Files a host may lack leave fields
// empty; the hostname is required.
func Read(root string) (schema.Host, error) {
	name, err := hostname(root)
	if err != nil {
		return schema.Host{}, err
	}
	return schema.Host{
		Hostname:    name,
		DMIString:   dmi(root),
		CPUModel:    cpuModel(root),
		OS:          runtime.GOOS,
		Arch:        runtime.GOARCH,
		LogicalCPUs: runtime.NumCPU(),
	}, nil
}

func hostname(root string) (string, error) {
	if root == "" {
		h, err := os.Hostname()
		if err != nil {
			return "", fmt.Errorf("host: hostname: %w", err)
		}
		return h, nil
	}
	b, err := os.ReadFile(filepath.Join(root, "proc/sys/kernel/hostname"))
	if err != nil {
		return "", fmt.Errorf("host: hostname: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// dmi joins the DMI vendor, product and board strings, skipping placeholders.
func dmi(root string) string {
	var parts []string
	for _, f := range []string{"sys_vendor", "product_name", "product_version", "board_vendor", "board_name"} {
		b, err := os.ReadFile(filepath.Join(rootOr(root), "sys/class/dmi/id", f))
		v := strings.TrimSpace(string(b))
		if err != nil || v == "" || placeholder(v) || contains(parts, v) {
			continue
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, " / ")
}

func placeholder(v string) bool {
	l := strings.ToLower(v)
	return l == "default string" || l == "to be filled by o.e.m." || l == "not specified" || l == "none"
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// cpuModel is /proc/cpuinfo's "model name", else the arm64 implementer and
// part, else the device-tree model.
func cpuModel(root string) string {
	b, err := os.ReadFile(filepath.Join(rootOr(root), "proc/cpuinfo"))
	if err != nil {
		return ""
	}
	fields := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		k = strings.TrimSpace(k)
		if _, seen := fields[k]; ok && !seen {
			fields[k] = strings.TrimSpace(v)
		}
	}
	switch {
	case fields["model name"] != "":
		return fields["model name"]
	case fields["CPU implementer"] != "":
		return fmt.Sprintf("arm64 implementer %s part %s", fields["CPU implementer"], fields["CPU part"])
	}
	dt, _ := os.ReadFile(filepath.Join(rootOr(root), "proc/device-tree/model"))
	return strings.TrimRight(string(dt), "\x00\n")
}

func rootOr(root string) string {
	if root == "" {
		return "/"
	}
	return root
}
