package gpu

import (
	"os"
	"testing"
)

func TestScratchALU(t *testing.T) {
	d := newDevice(t)
	code, _ := os.ReadFile("/tmp/f16.spv")
	d.scratchSPIRV(code)
	t.Logf("alive %v", d.alive())
}
