//go:build explore

package coopmat

import (
	"context"
	"encoding/binary"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/vkprobe/vktest"
)

var flagPeerModule = flag.String("coopmat.peermodule", "", "path: the Vulkan peer's fp16->fp16 shmem module with its specialisation constants frozen (16x16x16, 256x256x32 blocks, B row-major, 8192^3, alpha 1, beta 0), run in our harness")

// TestPeerModule runs the Vulkan peer's own fp16 kernel (SPIR-V of
// jeffbolznv/vk_cooperative_matrix_perf, never committed: bench/vkpeer.sh
// prepares it in the ignored .peers/vkcm) through our buffers, timing and
// check, to tell whether the gap between its figure and ours lies in the
// kernels or in how each harness runs them. The module must have had its
// specialisation constants frozen (spirv-opt --set-spec-const-default-value
// ... --freeze-spec-const --fold-spec-const-op-composite); its parameter
// block (four buffer addresses: A, B, C, D) becomes a storage buffer here.
// Without -coopmat.peermodule it skips.
func TestPeerModule(t *testing.T) {
	if *flagPeerModule == "" {
		t.Skip("no -coopmat.peermodule")
	}
	raw, err := os.ReadFile(*flagPeerModule)
	if err != nil {
		t.Fatal(err)
	}
	words := uniformToStorage(t, raw)
	d := vktest.Device(t)
	const n = 8192
	s := vk.Shape{M: 16, N: 16, K: 16, A: vk.Float16, B: vk.Float16, C: vk.Float16, Result: vk.Float16, Scope: vk.ScopeSubgroup}
	cache := &operandCache{}
	if *flagLeadData == "peer" {
		cache = peerOperands(vk.Float16, n)
	}
	a, bt := cache.get(7, vk.Float16, n, 0), cache.get(7, vk.Float16, n, 1)
	inputs := [][]byte{a.raw, cache.transposed(vk.Float16, n, bt), make([]byte, 2*n*n), nil}
	var bufs []*vk.Buffer
	t.Cleanup(func() {
		for _, b := range bufs {
			b.Release()
		}
	})
	var params []byte
	for i, in := range inputs {
		b, err := d.NewAddressedBuffer(2 * n * n)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
		if in != nil {
			if err := d.Upload(b, in); err != nil {
				t.Fatalf("input %d: %v", i, err)
			}
		}
		params = binary.LittleEndian.AppendUint64(params, b.Address)
	}
	pb, err := d.NewBuffer(uint64(len(params)), false)
	if err != nil {
		t.Fatal(err)
	}
	bufs = append(bufs, pb)
	if err := d.Upload(pb, params); err != nil {
		t.Fatal(err)
	}
	k, err := d.NewKernelOpts(words, nil, vk.PipelineOpts{FullSubgroups: true, Capture: *flagInspect != ""}, [][]*vk.Buffer{{pb}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	if *flagInspect != "" {
		writeExecutables(t, "peer-module", k)
	}
	m, err := d.Measure(context.Background(), k, [3]uint32{n / 256, n / 256, 1}, 2*float64(n)*n*n,
		vk.Timing{SampleTime: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.Download(bufs[3], 2*n*n)
	if err != nil {
		t.Fatal(err)
	}
	g := gemmCheck{m: n, n: n, k: n, a: a.values, bt: bt.values, acc: s.C, out: s.Result, lines: 4, seed: 7}
	c, err := g.run(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PEERMODULE %v %s %8.1f T/s (min %.1f max %.1f, n=%d, %s, reps %d) check worst %.3g on %d at %s", s, *flagLeadData,
		m.Rate.Median/1e12, m.Rate.Min/1e12, m.Rate.Max/1e12, m.Rate.Samples, m.Method, m.Repeats, c.Worst, c.Elements,
		time.Now().UTC().Format("15:04:05.000"))
}

// uniformToStorage returns the module's words with every Uniform pointer
// type and variable moved to the StorageBuffer class, so that a uniform
// parameter block binds as a storage buffer.
func uniformToStorage(t *testing.T, raw []byte) []uint32 {
	t.Helper()
	if len(raw)%4 != 0 || len(raw) < 20 || binary.LittleEndian.Uint32(raw) != 0x07230203 {
		t.Fatal("not a little-endian SPIR-V module")
	}
	w := make([]uint32, len(raw)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	const uniform, storage = 2, uint32(spirv.StorageStorageBuffer)
	for i := 5; i < len(w); {
		op, count := spirv.Op(w[i]&0xffff), int(w[i]>>16)
		if count == 0 || i+count > len(w) {
			t.Fatalf("bad instruction at word %d", i)
		}
		switch {
		case op == spirv.OpTypePointer && w[i+2] == uniform: // result, class, type
			w[i+2] = storage
		case op == spirv.OpVariable && count >= 4 && w[i+3] == uniform: // type, result, class
			w[i+3] = storage
		}
		i += count
	}
	return w
}
