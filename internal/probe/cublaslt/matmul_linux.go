//go:build linux && cgo

package cublaslt

/*
#include "ltapi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/everycycle/appraise/internal/platform/cuda"
)

// matmul is one precision set up on a device (launch runs algos[cur]);
// Release frees it.
type matmul struct {
	d       *device
	p       Precision
	m, n, k int
	desc    C.cublasLtMatmulDesc_t
	layouts [3]C.cublasLtMatrixLayout_t // A, B, D (C is D)
	pref    C.cublasLtMatmulPreference_t
	algos   []algo
	cur     int
	bufs    []cuda.Ptr // scales, then A, B, D
	a, b, D cuda.Ptr
	alpha   []byte
	beta    []byte
}

// algo is one algorithm the heuristic proposed and the workspace it needs.
type algo struct {
	a      C.cublasLtMatmulAlgo_t
	wsNeed uint64
}

// refusal is the library saying no to a precision: not offered, for reason.
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

// refused turns INVALID_VALUE or NOT_SUPPORTED into a refusal.
func refused(err error) error {
	var se *StatusError
	if errors.As(err, &se) && (se.Code == 7 || se.Code == 15) {
		return &refusal{reason: "cuBLASLt refused it: " + err.Error()}
	}
	return err
}

// newMatmul sets p up for an m×n×k GEMM with up to want algorithms. A
// *refusal means not offered; nothing is left behind on any error.
func (d *device) newMatmul(p Precision, m, n, k, want int) (*matmul, error) {
	mm := &matmul{d: d, p: p, m: m, n: n, k: k}
	if err := mm.setup(want); err != nil {
		return nil, errors.Join(err, mm.release())
	}
	return mm, nil
}

func (mm *matmul) setup(want int) error {
	api, p := mm.d.l.api, mm.p
	if v := mm.d.l.info.Version; p.Scaling.Block() > 0 && v < blockScaleSince {
		return &refusal{reason: fmt.Sprintf("cuBLASLt %s predates block-scaled matmul (12.8)", mm.d.l.info.VersionString())}
	}
	compute, scale := computeAndScale(p)
	mm.alpha, mm.beta = scalar(scale, 1), scalar(scale, 0)
	if err := lt("cublasLtMatmulDescCreate", C.lt_desc_create(api, &mm.desc, C.int(compute), C.int(scale))); err != nil {
		return refused(err)
	}
	if err := mm.setInt32(descTransA, cublasOpT, "TRANSA"); err != nil {
		return err
	}
	if err := mm.setInt32(descTransB, cublasOpN, "TRANSB"); err != nil {
		return err
	}
	if err := mm.scales(); err != nil {
		return err
	}
	if err := mm.makeLayouts(); err != nil {
		return err
	}
	return mm.heuristic(want)
}

func (mm *matmul) setInt32(attr int, v int32, name string) error {
	err := lt("cublasLtMatmulDescSetAttribute("+name+")",
		C.lt_desc_set(mm.d.l.api, mm.desc, C.int(attr), unsafe.Pointer(&v), C.size_t(unsafe.Sizeof(v))))
	return refused(err)
}

func (mm *matmul) setPointer(attr int, p cuda.Ptr, name string) error {
	v := uintptr(p)
	err := lt("cublasLtMatmulDescSetAttribute("+name+")",
		C.lt_desc_set(mm.d.l.api, mm.desc, C.int(attr), unsafe.Pointer(&v), C.size_t(unsafe.Sizeof(v))))
	return refused(err)
}

// scales sets the scale mode and uploads unit scales, padded as cuBLASLt
// lays block scales out; the heuristic needs them set.
func (mm *matmul) scales() error {
	switch s := mm.p.Scaling; s {
	case ScaleNone:
		return nil
	case ScaleTensor:
		one := make([]byte, 4)
		put(one, F32, 0, encode(F32, 1))
		for i, attr := range []int{descAScalePtr, descBScalePtr} {
			p, err := mm.keep(mm.d.upload(one))
			if err != nil {
				return err
			}
			if err := mm.setPointer(attr, p, [...]string{"A_SCALE_POINTER", "B_SCALE_POINTER"}[i]); err != nil {
				return err
			}
		}
		return nil
	default:
		code := byte(127) // ue8m0: 2^(127-127) = 1
		if s == ScaleBlock16UE4M3 {
			code = byte(encode(F8E4M3, 1))
		}
		for i, rows := range []int{mm.m, mm.n} {
			if err := mm.setInt32([...]int{descAScaleMode, descBScaleMode}[i], scaleMode(s), [...]string{"A_SCALE_MODE", "B_SCALE_MODE"}[i]); err != nil {
				return err
			}
			n := roundUp(rows, 128) * roundUp(mm.k/s.Block(), 4)
			buf := make([]byte, n)
			for j := range buf {
				buf[j] = code
			}
			p, err := mm.keep(mm.d.upload(buf))
			if err != nil {
				return err
			}
			if err := mm.setPointer([...]int{descAScalePtr, descBScalePtr}[i], p, [...]string{"A_SCALE_POINTER", "B_SCALE_POINTER"}[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

func (mm *matmul) keep(p cuda.Ptr, err error) (cuda.Ptr, error) {
	if err == nil {
		mm.bufs = append(mm.bufs, p)
	}
	return p, err
}

// makeLayouts describes A as k×m and B as k×n column-major (A transposed
// by TRANSA), and D as m×n column-major.
func (mm *matmul) makeLayouts() error {
	shapes := [3]struct {
		t          Type
		rows, cols int
	}{{mm.p.A, mm.k, mm.m}, {mm.p.B, mm.k, mm.n}, {mm.p.Out, mm.m, mm.n}}
	for i, s := range shapes {
		r := C.lt_layout_create(mm.d.l.api, &mm.layouts[i], C.int(cudaType(s.t)), C.uint64_t(s.rows), C.uint64_t(s.cols), C.int64_t(s.rows))
		if err := lt(fmt.Sprintf("cublasLtMatrixLayoutCreate(%v)", s.t), r); err != nil {
			return refused(err)
		}
	}
	return nil
}

// heuristic keeps up to want algorithms within the workspace that the
// library says can run, in its order; none is a refusal.
func (mm *matmul) heuristic(want int) error {
	api := mm.d.l.api
	if err := lt("cublasLtMatmulPreferenceCreate", C.lt_pref_create(api, &mm.pref)); err != nil {
		return err
	}
	ws := C.uint64_t(mm.d.wsBytes)
	r := C.lt_pref_set(api, mm.pref, prefMaxWorkspace, unsafe.Pointer(&ws), C.size_t(unsafe.Sizeof(ws)))
	if err := lt("cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)", r); err != nil {
		return err
	}
	res := make([]C.cublasLtMatmulHeuristicResult_t, max(want, 1))
	var got C.int
	r = C.lt_heuristic(api, mm.d.handle, mm.desc, mm.layouts[0], mm.layouts[1], mm.layouts[2], mm.layouts[2], mm.pref,
		C.int(len(res)), &res[0], &got)
	if err := lt("cublasLtMatmulAlgoGetHeuristic", r); err != nil {
		return refused(err)
	}
	for _, h := range res[:min(int(got), len(res))] {
		if h.state == 0 {
			mm.algos = append(mm.algos, algo{a: h.algo, wsNeed: uint64(h.workspaceSize)})
		}
	}
	if len(mm.algos) == 0 {
		return &refusal{reason: fmt.Sprintf("cublasLtMatmulAlgoGetHeuristic returned no usable algorithm (%d proposed)", got)}
	}
	return nil
}

// release destroys the descriptors and frees the buffers; safe twice.
func (mm *matmul) release() error {
	api := mm.d.l.api
	var errs []error
	if mm.D != 0 || len(mm.bufs) > 0 {
		// Launches may still be in flight after a failure.
		errs = append(errs, cu(mm.d.l.drv.Sync()))
	}
	for _, p := range mm.bufs {
		errs = append(errs, mm.d.free(p))
	}
	mm.bufs, mm.a, mm.b, mm.D = nil, 0, 0, 0
	if mm.pref != nil {
		errs = append(errs, lt("cublasLtMatmulPreferenceDestroy", C.lt_pref_destroy(api, mm.pref)))
		mm.pref = nil
	}
	for i, l := range mm.layouts {
		if l != nil {
			errs = append(errs, lt("cublasLtMatrixLayoutDestroy", C.lt_layout_destroy(api, l)))
			mm.layouts[i] = nil
		}
	}
	if mm.desc != nil {
		errs = append(errs, lt("cublasLtMatmulDescDestroy", C.lt_desc_destroy(api, mm.desc)))
		mm.desc = nil
	}
	return errors.Join(errs...)
}

// load uploads A and Bᵀ and allocates D.
func (mm *matmul) load(g gemm) error {
	var err error
	if mm.a, err = mm.keep(mm.d.upload(g.a.raw)); err != nil {
		return err
	}
	if mm.b, err = mm.keep(mm.d.upload(g.bt.raw)); err != nil {
		return err
	}
	mm.D, err = mm.keep(mm.d.alloc(uint64(mm.p.Out.rowBytes(mm.m * mm.n))))
	return err
}

// borrow makes mm use owner's buffers (owner's K at least mm's); release
// owner after mm.
func (mm *matmul) borrow(owner *matmul) {
	mm.a, mm.b, mm.D = owner.a, owner.b, owner.D
}

// launch enqueues times GEMMs on the device's stream.
func (mm *matmul) launch(times int) error {
	d := mm.d
	r := C.lt_matmul_repeat(d.l.api, C.int(times), d.handle, mm.desc, unsafe.Pointer(&mm.alpha[0]),
		C.CUdeviceptr(mm.a), mm.layouts[0], C.CUdeviceptr(mm.b), mm.layouts[1], unsafe.Pointer(&mm.beta[0]), C.CUdeviceptr(mm.D), mm.layouts[2],
		&mm.algos[mm.cur].a, C.CUdeviceptr(d.ws), C.size_t(d.wsBytes), C.CUstream(d.stream.Pointer()))
	return lt("cublasLtMatmul("+mm.p.Name+")", r)
}

// result downloads D; what it returns is valid until the next download.
func (mm *matmul) result() ([]byte, error) {
	out := mm.d.scratch(mm.p.Out.rowBytes(mm.m * mm.n))
	return out, mm.d.download(out, mm.D)
}

func roundUp(x, to int) int { return (x + to - 1) / to * to }
