package coopmat

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// TestAddressedInputs runs a kernel that reads its two inputs through the
// 64-bit buffer device addresses RunKernel pushes (the path the
// cooperative-matrix GEMM takes with Addressed), out[i] = a[i] - b[i] over
// 16-byte vectors, and checks every word. It needs bufferDeviceAddress
// (lavapipe has it), and runs again with the pipeline requiring full
// subgroups where the device can (lavapipe can).
func TestAddressedInputs(t *testing.T) {
	d := vktest.Device(t)
	if !d.Enabled.BufferAddress || d.AddressFn == nil {
		t.Skipf("%s: no buffer device addresses", d.Info.Name)
	}
	const n, local = 4096, 64 // vectors, invocations per workgroup
	g := &cmGen{Builder: vk.NewBuilder(vk.SpirvVersion(d.Info.API))}
	g.uvec4 = g.Builder.M.TypeVector(g.U32, 4)
	g.addressInputs()
	g.Binding = 2
	out, outPtr := g.Storage(g.uvec4, 16)
	gid := g.Builtin(spirv.BuiltInGlobalInvocationID, false)
	load := func(base spirv.ID) spirv.ID {
		return g.F.LoadAligned(g.uvec4, g.Elem(g.gPtr, base, gid), 16)
	}
	g.F.Store(g.Elem(outPtr, out, gid), g.F.Binary(spirv.OpISub, g.uvec4, load(g.aG), load(g.bG)))
	words := g.Finish(local, 1, 1)

	a, b := make([]byte, 16*n), make([]byte, 16*n)
	for i := range 4 * n {
		binary.LittleEndian.PutUint32(a[4*i:], uint32(i)*2654435761)
		binary.LittleEndian.PutUint32(b[4*i:], ^uint32(i)*40503)
	}
	// Also with the pipeline requiring full subgroups, where the device can.
	setups := []vk.KernelSetup{{Addressed: true}}
	if d.Enabled.FullSubgroups {
		setups = append(setups, vk.KernelSetup{Addressed: true, FullSubgroups: true})
	}
	for _, setup := range setups {
		got, _, err := d.RunKernel(context.Background(), words, [][]byte{a, b}, setup, 16*n,
			[3]uint32{n / local, 1, 1}, n, vk.Timing{SampleTime: time.Millisecond})
		if err != nil {
			t.Fatalf("%+v: %v", setup, err)
		}
		for i := range 4 * n {
			want := binary.LittleEndian.Uint32(a[4*i:]) - binary.LittleEndian.Uint32(b[4*i:])
			if w := binary.LittleEndian.Uint32(got[4*i:]); w != want {
				t.Fatalf("%+v: word %d: %#x, want %#x", setup, i, w, want)
			}
		}
	}
	t.Logf("%s: %d setups (full subgroups: %v)", d.Info.Name, len(setups), d.Enabled.FullSubgroups)
}
