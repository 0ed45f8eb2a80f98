package vk

import (
	"errors"
	"fmt"
)

// ErrExtensionMissing is wrapped, with the extension's name, when an
// extension a probe needs (or the feature it gates) is absent.
var ErrExtensionMissing = errors.New("extension missing")

// ErrNoVulkan reports that no Vulkan loader or no Vulkan device is present.
var ErrNoVulkan = errors.New("no vulkan device")

// ErrCheckFailed reports that a kernel's output did not match its CPU
// reference; its throughput must not be reported.
var ErrCheckFailed = errors.New("result check failed")

// ComponentType is a VkComponentTypeKHR: a cooperative matrix's element type.
type ComponentType int32

const (
	Float16  ComponentType = 0
	Float32  ComponentType = 1
	Float64  ComponentType = 2
	Sint8    ComponentType = 3
	Sint16   ComponentType = 4
	Sint32   ComponentType = 5
	Sint64   ComponentType = 6
	Uint8    ComponentType = 7
	Uint16   ComponentType = 8
	Uint32   ComponentType = 9
	Uint64   ComponentType = 10
	BFloat16 ComponentType = 1000141000
	E4M3     ComponentType = 1000491002
	E5M2     ComponentType = 1000491003
)

var componentNames = map[ComponentType]string{
	Float16: "f16", Float32: "f32", Float64: "f64", Sint8: "s8", Sint16: "s16",
	Sint32: "s32", Sint64: "s64", Uint8: "u8", Uint16: "u16", Uint32: "u32",
	Uint64: "u64", BFloat16: "bf16", E4M3: "e4m3", E5M2: "e5m2",
}

// String returns the short name (f16, bf16, s8, …) or the raw number.
func (c ComponentType) String() string {
	if s, ok := componentNames[c]; ok {
		return s
	}
	return fmt.Sprintf("component(%d)", int32(c))
}

// Bytes is the size of one element in bytes (0 when unknown).
func (c ComponentType) Bytes() int {
	switch c {
	case Sint8, Uint8, E4M3, E5M2:
		return 1
	case Float16, BFloat16, Sint16, Uint16:
		return 2
	case Float32, Sint32, Uint32:
		return 4
	case Float64, Sint64, Uint64:
		return 8
	}
	return 0
}

// Signed reports whether c is a signed integer type.
func (c ComponentType) Signed() bool {
	return c == Sint8 || c == Sint16 || c == Sint32 || c == Sint64
}

// Integer reports whether c is an integer type.
func (c ComponentType) Integer() bool {
	switch c {
	case Sint8, Sint16, Sint32, Sint64, Uint8, Uint16, Uint32, Uint64:
		return true
	}
	return false
}

// Scope is a VkScopeKHR: the invocations sharing one matrix.
type Scope int32

const (
	ScopeDevice      Scope = 1
	ScopeWorkgroup   Scope = 2
	ScopeSubgroup    Scope = 3
	ScopeQueueFamily Scope = 5
)

// String names the scope.
func (s Scope) String() string {
	switch s {
	case ScopeDevice:
		return "device"
	case ScopeWorkgroup:
		return "workgroup"
	case ScopeSubgroup:
		return "subgroup"
	case ScopeQueueFamily:
		return "queue-family"
	}
	return fmt.Sprintf("scope(%d)", int32(s))
}

// Shape is one cooperative-matrix configuration the driver offers:
// Result(M×N) = A(M×K)·B(K×N) + C(M×N).
type Shape struct {
	M, N, K         uint32
	A, B, C, Result ComponentType
	Saturating      bool
	Scope           Scope
}

// String renders e.g. "16x16x16 f16*f16+f32->f32 subgroup".
func (s Shape) String() string {
	sat := ""
	if s.Saturating {
		sat = " saturating"
	}
	return fmt.Sprintf("%dx%dx%d %v*%v+%v->%v %v%s", s.M, s.N, s.K, s.A, s.B, s.C, s.Result, s.Scope, sat)
}

// Shapes returns every cooperative-matrix shape the driver offers, in its
// order; without the extension the error wraps ErrExtensionMissing.
func (d *Device) Shapes() ([]Shape, error) {
	if !d.Info.HasExtension(ExtCoopMat) {
		return nil, fmt.Errorf("coopmat: %s: %w", ExtCoopMat, ErrExtensionMissing)
	}
	shapes, err := d.Ext.queryCoopMat(d.pd)
	if err != nil {
		return nil, fmt.Errorf("coopmat: %w", err)
	}
	return shapes, nil
}
