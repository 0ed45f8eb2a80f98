package coopmat

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/internal/spirv"
)

// TestAddressedInputs runs a kernel that reads its two inputs through the
// 64-bit buffer device addresses runKernel pushes (the path the
// cooperative-matrix GEMM takes with Addressed), out[i] = a[i] - b[i] over
// 16-byte vectors, and checks every word. It needs bufferDeviceAddress
// (lavapipe has it).
func TestAddressedInputs(t *testing.T) {
	d := newDevice(t)
	if !d.enabled.BufferAddress || d.addressFn == nil {
		t.Skipf("%s: no buffer device addresses", d.Info.Name)
	}
	const n, local = 4096, 64 // vectors, invocations per workgroup
	g := &cmGen{builder: newBuilder(spirvVersion(d.Info.apiVersion))}
	g.uvec4 = g.builder.m.TypeVector(g.u32, 4)
	g.addressInputs()
	g.binding = 2
	out, outPtr := g.storage(g.uvec4, 16)
	gid := g.builtin(spirv.BuiltInGlobalInvocationID, false)
	load := func(base spirv.ID) spirv.ID {
		return g.f.LoadAligned(g.uvec4, g.elem(g.gPtr, base, gid), 16)
	}
	g.f.Store(g.elem(outPtr, out, gid), g.f.Binary(spirv.OpISub, g.uvec4, load(g.aG), load(g.bG)))
	words := g.finish(local, 1, 1)

	a, b := make([]byte, 16*n), make([]byte, 16*n)
	for i := range 4 * n {
		binary.LittleEndian.PutUint32(a[4*i:], uint32(i)*2654435761)
		binary.LittleEndian.PutUint32(b[4*i:], ^uint32(i)*40503)
	}
	got, _, err := d.runKernel(context.Background(), words, [][]byte{a, b}, kernelSetup{addressed: true}, 16*n,
		[3]uint32{n / local, 1, 1}, n, Timing{SampleTime: time.Millisecond})
	if errors.Is(err, ErrFeatureMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 * n {
		want := binary.LittleEndian.Uint32(a[4*i:]) - binary.LittleEndian.Uint32(b[4*i:])
		if w := binary.LittleEndian.Uint32(got[4*i:]); w != want {
			t.Fatalf("word %d: %#x, want %#x", i, w, want)
		}
	}
}
