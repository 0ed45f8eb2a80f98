package appraisal

import (
	"errors"
	"testing"
)

// fakeMachine has adapters whose memory lands on Vulkan devices by a
// wiring the test knows and proveMapping must discover.
type fakeMachine struct {
	wiring map[int]int    // adapter → Vulkan device it really is
	usage  map[int]uint64 // Vulkan device → bytes in use
}

func (m *fakeMachine) hold(adapter int, n uint64) (func(), error) {
	v, ok := m.wiring[adapter]
	if !ok {
		return nil, errors.New("no such adapter")
	}
	m.usage[v] += n
	return func() { m.usage[v] -= n }, nil
}

func (m *fakeMachine) read(v int) (uint64, error) { return m.usage[v], nil }

// TestProveMappingCrossed: two identical GPUs whose WebGPU order is the
// reverse of Vulkan's; the order must not be trusted.
func TestProveMappingCrossed(t *testing.T) {
	m := &fakeMachine{wiring: map[int]int{0: 1, 1: 0}, usage: map[int]uint64{0: 5 << 30, 1: 3 << 30}}
	got, err := proveMapping(map[int][]int{0: {0, 1}, 1: {0, 1}}, m.hold, m.read)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 1 || got[1] != 0 || len(got) != 2 {
		t.Fatalf("mapping %v, want 0→1 and 1→0", got)
	}
	if m.usage[0] != 5<<30 || m.usage[1] != 3<<30 {
		t.Fatalf("held memory not released: %v", m.usage)
	}
}

// TestProveMappingInconclusive: when the hold shows up nowhere (another
// process freed memory at the same moment, say) nothing is mapped.
func TestProveMappingInconclusive(t *testing.T) {
	m := &fakeMachine{wiring: map[int]int{0: 7}, usage: map[int]uint64{}}
	got, err := proveMapping(map[int][]int{0: {0, 1}}, m.hold, m.read)
	if err != nil || len(got) != 0 {
		t.Fatalf("mapping %v, %v: want none", got, err)
	}
}
