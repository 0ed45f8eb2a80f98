package coopmat

import (
	"fmt"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
)

// CoopTile is the tiling of the cooperative-matrix GEMM: a workgroup of
// WM×WN subgroups computes a block of C, each subgroup TM×TN tiles of the
// shape, staging BK of K a step through shared memory. The search tries
// the loop schedules TopBarrier, NoUnroll and Pad on its winner; the other
// options are leads, never candidates.
type CoopTile struct {
	WM, WN, TM, TN, BK uint32
	Stages             uint32 // shared buffers: 0 or 1 (one), 2
	Prefetch           uint32 // K steps the global loads run ahead: 0 or 1 (one), 2
	BRowMajor          bool   // B stored K×N row-major, else N×K
	EarlyLoad          bool   // global loads before the mid-step barrier
	ReadOnly           bool   // A and B declared NonWritable
	Addressed          bool   // A and B read through buffer device addresses
	Guard              bool   // loads past the last step skipped by a branch, not clamped
	FullSubgroups      bool   // the pipeline requires full subgroups
	TopBarrier         bool   // a step's closing barrier opens the next step (one buffer)
	NoUnroll           bool   // the main loop kept rolled
	Unroll             uint32 // above 1: the main loop unrolled that many times (SPIR-V 1.4+)
	Pad                bool   // operands padded past their end, loads never clamped
	Vars               bool   // accumulators and registers in Function variables (one buffer)
	Version            uint32 // SPIR-V version to emit (0: the newest the device takes)
}

// String renders the tile as e.g. "wg2x2 t4x2 bk32 s2 brow": the
// arrangement, then each option set, by the names tileFlags gives.
func (t CoopTile) String() string {
	s := fmt.Sprintf("wg%dx%d t%dx%d bk%d", t.WM, t.WN, t.TM, t.TN, t.BK)
	if t.stages() > 1 {
		s += fmt.Sprintf(" s%d", t.stages())
	}
	if t.prefetch() > 1 {
		s += fmt.Sprintf(" p%d", t.prefetch())
	}
	for _, f := range tileFlags {
		if *f.of(&t) {
			s += " " + f.name
		}
	}
	if t.Unroll > 1 {
		s += fmt.Sprintf(" unroll%d", t.Unroll)
	}
	if t.Version != 0 {
		s += fmt.Sprintf(" spv%d.%d", t.Version>>16, t.Version>>8&0xff)
	}
	return s
}

// tileFlags names CoopTile's boolean options, in String's order.
var tileFlags = []struct {
	name string
	of   func(*CoopTile) *bool
}{
	{"brow", func(t *CoopTile) *bool { return &t.BRowMajor }},
	{"early", func(t *CoopTile) *bool { return &t.EarlyLoad }},
	{"ro", func(t *CoopTile) *bool { return &t.ReadOnly }},
	{"bda", func(t *CoopTile) *bool { return &t.Addressed }},
	{"guard", func(t *CoopTile) *bool { return &t.Guard }},
	{"full", func(t *CoopTile) *bool { return &t.FullSubgroups }},
	{"top", func(t *CoopTile) *bool { return &t.TopBarrier }},
	{"vars", func(t *CoopTile) *bool { return &t.Vars }},
	{"nounroll", func(t *CoopTile) *bool { return &t.NoUnroll }},
	{"pad", func(t *CoopTile) *bool { return &t.Pad }},
}

func (t CoopTile) stages() uint32   { return max(t.Stages, 1) }
func (t CoopTile) prefetch() uint32 { return max(t.Prefetch, 1) }

// cmLayout is a CoopTile resolved against a shape and a subgroup size.
// Shared blocks hold rows of 16-byte vectors, each row padded by one
// vector; the shared arrays' element is unit bytes, the widest of 16, 8 or
// 4 at which every fragment starts.
type cmLayout struct {
	t                CoopTile
	s                vk.Shape
	sub              uint32 // subgroup size
	bm, bn           uint32
	threads          uint32
	rowsB            uint32 // staged rows of B: BN (column-major) or BK (row-major)
	vecRowA, vecRowB uint32 // 16-byte vectors per staged row
	strideA, strideB uint32 // shared row strides in vectors (one of padding)
	loadsA, loadsB   uint32 // vectors each invocation stages per step
	unit             uint32 // bytes per element of the shared arrays: 16, 8 or 4 (else unusable)
}

// sharedUnit is the largest power of two up to 16 dividing the byte offsets
// at which fragments start in the shared blocks.
func sharedUnit(s vk.Shape, bRowMajor bool) uint32 {
	along := s.K * uint32(s.B.Bytes())
	if bRowMajor {
		along = s.N * uint32(s.B.Bytes())
	}
	u := uint32(16)
	for u > 1 && ((s.K*uint32(s.A.Bytes()))%u != 0 || along%u != 0) {
		u /= 2
	}
	return u
}

// perVec is the number of shared elements per 16-byte vector.
func (l cmLayout) perVec() uint32 { return 16 / l.unit }

func newLayout(t CoopTile, s vk.Shape, sub uint32) cmLayout {
	l := cmLayout{t: t, s: s, sub: sub, unit: sharedUnit(s, t.BRowMajor)}
	l.bm, l.bn = t.WM*t.TM*s.M, t.WN*t.TN*s.N
	l.threads = t.WM * t.WN * sub
	l.vecRowA = t.BK * uint32(s.A.Bytes()) / 16
	l.rowsB, l.vecRowB = l.bn, t.BK*uint32(s.B.Bytes())/16
	if t.BRowMajor {
		l.rowsB, l.vecRowB = t.BK, l.bn*uint32(s.B.Bytes())/16
	}
	l.strideA, l.strideB = l.vecRowA+1, l.vecRowB+1
	if l.threads > 0 {
		l.loadsA, l.loadsB = l.bm*l.vecRowA/l.threads, l.rowsB*l.vecRowB/l.threads
	}
	return l
}

// padBytes is how far past their ends the kernel reads A and B (0 without
// Pad).
func (l cmLayout) padBytes(n uint32) (a, b uint64) {
	if !l.t.Pad {
		return 0, 0
	}
	ahead := uint64(l.t.prefetch())
	a = ahead * uint64(l.t.BK) * uint64(l.s.A.Bytes())
	b = ahead * uint64(l.t.BK) * uint64(l.s.B.Bytes())
	if l.t.BRowMajor {
		b *= uint64(n)
	}
	return a, b
}

// stageA and stageB are the sizes of one shared buffer, in vectors.
func (l cmLayout) stageA() uint32 { return l.bm * l.strideA }
func (l cmLayout) stageB() uint32 { return l.rowsB * l.strideB }

func (l cmLayout) sharedBytes() uint32 { return 16 * l.t.stages() * (l.stageA() + l.stageB()) }

// accRegisters is each invocation's 32-bit accumulator registers.
func (l cmLayout) accRegisters() uint32 {
	if l.sub == 0 {
		return 0
	}
	return l.t.TM * l.t.TN * l.s.M * l.s.N * uint32(l.s.Result.Bytes()) / (4 * l.sub)
}

// mulAdds is the MulAdds of the main loop's body, a measure of code size.
func (l cmLayout) mulAdds() uint32 {
	return l.t.TM * l.t.TN * (l.t.BK / max(l.s.K, 1)) * l.t.stages()
}

// check says why the layout cannot run an m×n×k GEMM on info (nil if it can).
func (l cmLayout) check(m, n, k uint32, info vk.DeviceInfo) error {
	t, s := l.t, l.s
	ab, bb := uint32(s.A.Bytes()), uint32(s.B.Bytes())
	switch {
	case ab == 0 || bb == 0 || s.Result.Bytes() == 0:
		return fmt.Errorf("unsupported component types %v", s)
	case t.BK == 0 || t.BK%s.K != 0 || (t.BK*ab)%16 != 0 || (t.BK*bb)%16 != 0:
		return fmt.Errorf("tile %v: BK must be a multiple of K=%d and of 16 bytes", t, s.K)
	case l.unit < 4:
		return fmt.Errorf("shape %v: fragments start %d bytes apart; shared memory holds 4-byte units at the finest", s, l.unit)
	case t.BRowMajor && (l.bn*bb)%16 != 0:
		return fmt.Errorf("tile %v: row-major B needs block rows of 16 bytes, not %d", t, l.bn*bb)
	case t.Stages > 2 || t.Prefetch > 2 || (t.stages() > 1 && t.prefetch() > 1):
		return fmt.Errorf("tile %v: at most 2 stages or 2 steps of prefetch, not both", t)
	case t.Addressed && !info.Features.BufferAddress:
		return fmt.Errorf("tile %v: no buffer device addresses: %w", t, vk.ErrFeatureMissing)
	case t.Unroll > 1 && t.NoUnroll:
		return fmt.Errorf("tile %v: a partial unroll count and nounroll exclude each other", t)
	case t.FullSubgroups && !info.Features.FullSubgroups:
		return fmt.Errorf("tile %v: no computeFullSubgroups: %w", t, vk.ErrFeatureMissing)
	case t.Version != 0 && t.Version > vk.SpirvVersion(info.API):
		return fmt.Errorf("tile %v: the device takes SPIR-V up to %#x", t, vk.SpirvVersion(info.API))
	case t.Addressed && t.ReadOnly, (t.Guard || t.TopBarrier || t.Vars) && t.stages() > 1:
		return fmt.Errorf("tile %v: read-only inputs are descriptor bindings; guarded loads, top barriers and variables need one buffer", t)
	case l.threads == 0 || l.threads > info.MaxInvocations:
		return fmt.Errorf("tile %v: %d invocations (limit %d)", t, l.threads, info.MaxInvocations)
	case l.threads%l.vecRowA != 0 || l.threads%l.vecRowB != 0 ||
		(l.bm*l.vecRowA)%l.threads != 0 || (l.rowsB*l.vecRowB)%l.threads != 0:
		return fmt.Errorf("tile %v: staging does not divide among %d invocations", t, l.threads)
	case l.sharedBytes() > info.MaxSharedBytes:
		return fmt.Errorf("tile %v: %d bytes of shared memory (limit %d)", t, l.sharedBytes(), info.MaxSharedBytes)
	case m%l.bm != 0 || n%l.bn != 0 || k%(t.BK*t.stages()) != 0:
		return fmt.Errorf("tile %v (%dx%d) does not divide %dx%dx%d", t, l.bm, l.bn, m, n, k)
	}
	return nil
}

func componentType(m *spirv.Module, c vk.ComponentType) (spirv.ID, error) {
	switch c {
	case vk.Float16:
		m.AddCapability(spirv.CapabilityFloat16)
		return m.TypeFloat(16), nil
	case vk.BFloat16:
		m.AddCapability(spirv.CapabilityBFloat16CooperativeMatrixKHR)
		return m.TypeBFloat16(), nil
	case vk.Float32:
		return m.TypeFloat(32), nil
	case vk.Sint8, vk.Uint8:
		m.AddCapability(spirv.CapabilityInt8)
		return m.TypeInt(8, c == vk.Sint8), nil
	case vk.Sint32, vk.Uint32:
		return m.TypeInt(32, c == vk.Sint32), nil
	}
	return 0, fmt.Errorf("component type %v: %w", c, vk.ErrFeatureMissing)
}

func zeroOf(m *spirv.Module, c vk.ComponentType, t spirv.ID) spirv.ID {
	switch c {
	case vk.Float32:
		return m.ConstFloat32(0)
	case vk.Sint32:
		return m.ConstInt32(0)
	case vk.Uint32:
		return m.ConstUint32(0)
	}
	return m.ConstBits(t, 0)
}

func matrixOperands(s vk.Shape) spirv.MatrixOperands {
	var o spirv.MatrixOperands
	if s.A.Signed() {
		o |= spirv.MatrixASigned
	}
	if s.B.Signed() {
		o |= spirv.MatrixBSigned
	}
	if s.C.Signed() {
		o |= spirv.MatrixCSigned
	}
	if s.Result.Signed() {
		o |= spirv.MatrixResultSigned
	}
	if s.Saturating {
		o |= spirv.SaturatingAccumulation
	}
	return o
}
