// Package wgsl embeds the WGSL compute kernels of the portable probes in
// package gpu, one file per probe. Source returns a file's text by name and
// Bindings the buffer bindings it declares.
package wgsl

import (
	"embed"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
)

//go:embed *.wgsl
var files embed.FS

// ErrUnknownKernel is returned by Source for a name that no embedded file has.
var ErrUnknownKernel = errors.New("wgsl: unknown kernel file")

const ext = ".wgsl"

// Source returns the text of the kernel file called name, given without its
// ".wgsl" extension (Source("bandwidth") is bandwidth.wgsl).
func Source(name string) (string, error) {
	b, err := files.ReadFile(name + ext)
	if err != nil {
		return "", fmt.Errorf("%w: %q", ErrUnknownKernel, name)
	}
	return string(b), nil
}

// Space is the address space and access of a buffer binding.
type Space int

// The buffer binding spaces our kernels declare.
const (
	SpaceUniform          Space = iota // var<uniform>
	SpaceStorageRead                   // var<storage, read> (and var<storage>)
	SpaceStorageReadWrite              // var<storage, read_write>
)

// Binding is one buffer binding a kernel file declares in group 0.
type Binding struct {
	Slot  uint32
	Space Space
}

// bindingRe matches a group-0 buffer binding declaration.
var bindingRe = regexp.MustCompile(`@group\(0\)\s*@binding\((\d+)\)\s*var<\s*(uniform|storage)\s*(?:,\s*(read|read_write)\s*)?>`)

// Bindings lists the group-0 buffer bindings declared in src, by slot: what
// a bind group of any of its entry points must fill.
func Bindings(src string) []Binding {
	var out []Binding
	for _, m := range bindingRe.FindAllStringSubmatch(src, -1) {
		slot, err := strconv.ParseUint(m[1], 10, 32)
		if err != nil {
			continue
		}
		b := Binding{Slot: uint32(slot), Space: SpaceStorageRead}
		switch {
		case m[2] == "uniform":
			b.Space = SpaceUniform
		case m[3] == "read_write":
			b.Space = SpaceStorageReadWrite
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slot < out[j].Slot })
	return out
}
