package coopmat

import (
	"fmt"

	"github.com/everycycle/appraise/coopmat/internal/spirv"
)

// CoopTile is the tiling of the cooperative-matrix GEMM. A workgroup of
// WM×WN subgroups computes a BM×BN block of C (BM = WM·TM·shape.M, BN =
// WN·TN·shape.N); each subgroup computes TM×TN tiles of the shape. Each step
// stages BM×BK of A and BN×BK of B in shared memory through 16-byte vector
// loads, prefetching the next step's data into registers while the matrix
// engine works on the current one.
type CoopTile struct {
	WM, WN, TM, TN, BK uint32
}

// String renders the tile as e.g. "wg2x2 t4x2 bk32".
func (t CoopTile) String() string {
	return fmt.Sprintf("wg%dx%d t%dx%d bk%d", t.WM, t.WN, t.TM, t.TN, t.BK)
}

// cmLayout is a CoopTile resolved against a shape and device.
type cmLayout struct {
	t                CoopTile
	s                Shape
	sub              uint32 // subgroup size
	bm, bn           uint32
	threads          uint32
	vecRowA, vecRowB uint32 // 16-byte vectors per staged row
	strideA, strideB uint32 // shared row strides in vectors (one of padding)
	loadsA, loadsB   uint32 // vectors each invocation stages per step
}

func newLayout(t CoopTile, s Shape, sub uint32) cmLayout {
	l := cmLayout{t: t, s: s, sub: sub}
	l.bm, l.bn = t.WM*t.TM*s.M, t.WN*t.TN*s.N
	l.threads = t.WM * t.WN * sub
	l.vecRowA, l.vecRowB = t.BK*uint32(s.A.Bytes())/16, t.BK*uint32(s.B.Bytes())/16
	l.strideA, l.strideB = l.vecRowA+1, l.vecRowB+1
	if l.threads > 0 {
		l.loadsA, l.loadsB = l.bm*l.vecRowA/l.threads, l.bn*l.vecRowB/l.threads
	}
	return l
}

func (l cmLayout) sharedBytes() uint32 { return 16 * (l.bm*l.strideA + l.bn*l.strideB) }

// check reports why the layout cannot run an m×n×k GEMM on info (nil if it can).
func (l cmLayout) check(m, n, k uint32, info DeviceInfo) error {
	t, s := l.t, l.s
	switch {
	case s.A.Bytes() == 0 || s.B.Bytes() == 0 || s.Result.Bytes() == 0:
		return fmt.Errorf("unsupported component types %v", s)
	case t.BK == 0 || t.BK%s.K != 0 || (t.BK*uint32(s.A.Bytes()))%16 != 0 || (t.BK*uint32(s.B.Bytes()))%16 != 0:
		return fmt.Errorf("tile %v: BK must be a multiple of K=%d and of 16 bytes", t, s.K)
	case (s.K*uint32(s.A.Bytes()))%16 != 0 || (s.K*uint32(s.B.Bytes()))%16 != 0:
		return fmt.Errorf("shape %v: K row of %d bytes is not a multiple of 16", s, s.K*uint32(s.A.Bytes()))
	case l.threads == 0 || l.threads > info.MaxInvocations:
		return fmt.Errorf("tile %v: %d invocations (limit %d)", t, l.threads, info.MaxInvocations)
	case (l.bm*l.vecRowA)%l.threads != 0 || (l.bn*l.vecRowB)%l.threads != 0:
		return fmt.Errorf("tile %v: staging does not divide among %d invocations", t, l.threads)
	case l.sharedBytes() > info.MaxSharedBytes:
		return fmt.Errorf("tile %v: %d bytes of shared memory (limit %d)", t, l.sharedBytes(), info.MaxSharedBytes)
	case m%l.bm != 0 || n%l.bn != 0 || k%t.BK != 0:
		return fmt.Errorf("tile %v (%dx%d) does not divide %dx%dx%d", t, l.bm, l.bn, m, n, k)
	}
	return nil
}

// componentType returns the SPIR-V type for c, declaring what it needs.
func componentType(m *spirv.Module, c ComponentType) (spirv.ID, error) {
	switch c {
	case Float16:
		m.AddCapability(spirv.CapabilityFloat16)
		return m.TypeFloat(16), nil
	case BFloat16:
		m.AddCapability(spirv.CapabilityBFloat16CooperativeMatrixKHR)
		return m.TypeBFloat16(), nil
	case Float32:
		return m.TypeFloat(32), nil
	case Sint8, Uint8:
		m.AddCapability(spirv.CapabilityInt8)
		return m.TypeInt(8, c == Sint8), nil
	case Sint32, Uint32:
		return m.TypeInt(32, c == Sint32), nil
	}
	return 0, fmt.Errorf("component type %v: %w", c, ErrFeatureMissing)
}

// zeroOf returns the zero constant of component type c (SPIR-V type t).
func zeroOf(m *spirv.Module, c ComponentType, t spirv.ID) spirv.ID {
	switch c {
	case Float32:
		return m.ConstFloat32(0)
	case Sint32:
		return m.ConstInt32(0)
	case Uint32:
		return m.ConstUint32(0)
	}
	return m.ConstBits(t, 0)
}

// matrixOperands is the MulAdd mask: signedness and saturation.
func matrixOperands(s Shape) spirv.MatrixOperands {
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
