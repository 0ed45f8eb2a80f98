package vulkan

import (
	"cmp"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/internal/probe/vulkan/internal/spirv"
)

// targetEnv maps a module's SPIR-V version to a spirv-val target environment.
func targetEnv(version uint32) string {
	switch version {
	case spirv.Version16:
		return "vulkan1.3"
	case spirv.Version15:
		return "vulkan1.2"
	}
	return "vulkan1.1"
}

// validate runs spirv-val on words, skipping when spirv-val is not installed
// (failing when CI=true). It returns spirv-val's output and whether it
// passed. $SPIRV_VAL names the validator when set (scripts/test sets it to
// a newer one than Debian 12's, see scripts/spirv-val).
func validate(t *testing.T, name string, words []uint32) (string, bool) {
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
	out, err := exec.Command(path, "--target-env", targetEnv(words[1]), file).CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}
