// Package wgsl embeds the WGSL compute kernels of appraise's portable probes.
//
// There is one file per probe, named after the probe's Go file in package gpu
// (gpu/bandwidth.go runs bandwidth.wgsl). Source returns a file's text by name;
// Names lists what is embedded. The kernels are plain text: the device compiles
// them when a probe creates its pipelines.
package wgsl

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.wgsl
var files embed.FS

// ErrUnknownKernel is returned by Source for a name that no embedded file has.
var ErrUnknownKernel = errors.New("wgsl: unknown kernel file")

// ext is the extension every embedded kernel file has.
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

// Names lists the embedded kernel files without their extension, sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ext); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
