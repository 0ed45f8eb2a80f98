//go:build explore

package coopmat

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
)

// peerModuleEdge is the GEMM edge the peer's module is frozen for.
const peerModuleEdge = 8192

// ExplorePeerModule runs the Vulkan peer's own fp16 → fp16 kernel (SPIR-V
// of jeffbolznv/vk_cooperative_matrix_perf, never committed:
// bench/vkpeer.sh prepares it in the ignored .peers/vkcm) through our
// buffers, timing and check, to tell whether the gap between its figure
// and ours lies in the kernels or in how each harness runs them. module is
// the peer's 16x16x16 shmem kernel with its specialisation constants frozen
// (256×256×32 blocks, B row-major, 8192³, alpha 1, beta 0: spirv-opt
// --set-spec-const-default-value ... --freeze-spec-const
// --fold-spec-const-op-composite); its parameter block (four buffer
// addresses: A, B, C, D) becomes a storage buffer here. peerData draws the
// operands like the peer; inspect, when set, receives what the driver
// compiled the kernel into. The result is checked; a mismatch returns an
// error wrapping vk.ErrCheckFailed.
func ExplorePeerModule(ctx context.Context, d *vk.Device, module []byte, peerData bool, inspect func([]vk.Executable, error)) (vk.Result, error) {
	words, err := uniformToStorage(module)
	if err != nil {
		return vk.Result{}, err
	}
	const n = peerModuleEdge
	s := vk.Shape{M: 16, N: 16, K: 16, A: vk.Float16, B: vk.Float16, C: vk.Float16, Result: vk.Float16, Scope: vk.ScopeSubgroup}
	cache := &operandCache{}
	if peerData {
		cache = peerOperands(vk.Float16, n)
	}
	a, bt := cache.get(7, vk.Float16, n, 0), cache.get(7, vk.Float16, n, 1)
	bufs, err := peerBuffers(d, [][]byte{a.raw, cache.transposed(vk.Float16, n, bt), make([]byte, 2*n*n), nil})
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	if err != nil {
		return vk.Result{}, err
	}
	k, err := d.NewKernelOpts(words, nil, vk.PipelineOpts{FullSubgroups: true, Capture: inspect != nil}, [][]*vk.Buffer{{bufs[4]}})
	if err != nil {
		return vk.Result{}, fmt.Errorf("coopmat: peer module: %w", err)
	}
	defer k.Release()
	if inspect != nil {
		inspect(d.Ext.Executables(d.Dev, k.Pipe))
	}
	m, err := d.Measure(ctx, k, [3]uint32{n / 256, n / 256, 1}, 2*float64(n)*n*n, vk.Timing{SampleTime: 20 * time.Millisecond})
	if err != nil {
		return vk.Result{}, fmt.Errorf("coopmat: peer module: %w", err)
	}
	out, err := d.Download(bufs[3], 2*n*n)
	if err != nil {
		return vk.Result{}, fmt.Errorf("coopmat: peer module: %w", err)
	}
	g := gemmCheck{m: n, n: n, k: n, a: a.values, bt: bt.values, acc: s.C, out: s.Result, lines: 4, seed: 7}
	c, err := g.run(out)
	if err != nil {
		return vk.Result{}, fmt.Errorf("coopmat: peer module: %w", err)
	}
	return vk.Result{Probe: vk.ProbeCoopMatGEMM, Shape: s, MatrixEngine: true, Problem: vk.Problem{M: n, N: n, K: n},
		OpsPerSecond: m.Rate, Timing: m.Method, Repeats: m.Repeats, Tile: "peer module", Check: c}, nil
}

// peerBuffers makes the peer module's addressed buffers, one per input
// (nil: left as allocated), and last the parameter block of their
// addresses. It returns what it made even on error, for the caller to
// release.
func peerBuffers(d *vk.Device, inputs [][]byte) ([]*vk.Buffer, error) {
	var bufs []*vk.Buffer
	var params []byte
	for i, in := range inputs {
		b, err := d.NewAddressedBuffer(2 * peerModuleEdge * peerModuleEdge)
		if err != nil {
			return bufs, fmt.Errorf("coopmat: peer module: buffer %d: %w", i, err)
		}
		bufs = append(bufs, b)
		if in != nil {
			if err := d.Upload(b, in); err != nil {
				return bufs, fmt.Errorf("coopmat: peer module: input %d: %w", i, err)
			}
		}
		params = binary.LittleEndian.AppendUint64(params, b.Address)
	}
	pb, err := d.NewBuffer(uint64(len(params)), false)
	if err != nil {
		return bufs, fmt.Errorf("coopmat: peer module: parameters: %w", err)
	}
	bufs = append(bufs, pb)
	if err := d.Upload(pb, params); err != nil {
		return bufs, fmt.Errorf("coopmat: peer module: parameters: %w", err)
	}
	return bufs, nil
}

// uniformToStorage returns the module's words with every Uniform pointer
// type and variable moved to the StorageBuffer class, so that a uniform
// parameter block binds as a storage buffer.
func uniformToStorage(raw []byte) ([]uint32, error) {
	if len(raw)%4 != 0 || len(raw) < 20 || binary.LittleEndian.Uint32(raw) != spirv.Magic {
		return nil, errors.New("coopmat: peer module: not a little-endian SPIR-V module")
	}
	w := make([]uint32, len(raw)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	const uniform, storage = 2, uint32(spirv.StorageStorageBuffer)
	for i := 5; i < len(w); {
		op, count := spirv.Op(w[i]&0xffff), int(w[i]>>16)
		if count == 0 || i+count > len(w) {
			return nil, fmt.Errorf("coopmat: peer module: bad instruction at word %d", i)
		}
		switch {
		case op == spirv.OpTypePointer && w[i+2] == uniform: // result, class, type
			w[i+2] = storage
		case op == spirv.OpVariable && count >= 4 && w[i+3] == uniform: // type, result, class
			w[i+3] = storage
		}
		i += count
	}
	return w, nil
}
