// Package vktest holds the test helpers the raw-Vulkan packages share.
package vktest

import (
	"cmp"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
)

// SmallOptions keep runs on a software device short, within the minimums.
func SmallOptions() vk.Options {
	return vk.Options{
		Timing: vk.Timing{Samples: vk.MinSamples, SampleTime: 5 * time.Millisecond},
		Size:   64, Seed: 1, FMAInvocations: 1024, FMASteps: 64,
	}
}

// Device opens the first Vulkan device for the test. It skips when there is
// none, or fails when CI=true.
func Device(t *testing.T) *vk.Device {
	t.Helper()
	d, err := vk.Open(0)
	if errors.Is(err, vk.ErrNoVulkan) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Vulkan device in CI (install libvulkan1 mesa-vulkan-drivers): %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Release)
	return d
}

// TargetEnv maps a module's SPIR-V version to a spirv-val target environment.
func TargetEnv(version uint32) string {
	switch version {
	case spirv.Version16:
		return "vulkan1.3"
	case spirv.Version15:
		return "vulkan1.2"
	}
	return "vulkan1.1"
}

// Validate runs spirv-val ($SPIRV_VAL when set) on words and returns its
// output and whether it passed; without one it skips, or fails when CI=true.
func Validate(t *testing.T, name string, words []uint32) (string, bool) {
	t.Helper()
	path, err := exec.LookPath(cmp.Or(os.Getenv("SPIRV_VAL"), "spirv-val"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("spirv-val not installed (apt-get install spirv-tools)")
		}
		t.Skip("spirv-val not installed")
	}
	file := filepath.Join(t.TempDir(), name+".spv")
	buf := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(buf[4*i:], w)
	}
	if err := os.WriteFile(file, buf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "--target-env", TargetEnv(words[1]), file).CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}
