package crosscheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/everycycle/appraise/babelstream"
	"github.com/everycycle/appraise/internal/crosscheck/toolrun"
	"github.com/everycycle/appraise/mixbench"
)

// ErrToolMissing is wrapped when a tool is not found; ErrToolBroken when
// its smallest run fails or prints what its parser rejects.
var (
	ErrToolMissing = errors.New("cross-check tool not found")
	ErrToolBroken  = errors.New("cross-check tool does not run")
)

const preflightTimeout = time.Minute

// smallBabelStream is BabelStream's smallest run: two runs over arrays of
// 2^20 elements, a multiple of any build's block size.
var smallBabelStream = []string{"--csv", "-s", "1048576", "-n", "2"}

// Tools are the tools Preflight found for one vendor's devices.
type Tools struct {
	// BabelStream and Mixbench are the binaries' paths.
	BabelStream, Mixbench string
	// Devices are the names BabelStream's --list printed, in order.
	Devices []string
}

// cuda reports whether bin is a CUDA build by its name.
func cuda(bin string) bool { return strings.Contains(filepath.Base(bin), "cuda") }

// defaultNames are the builds for a vendor id, its own API's first.
func defaultNames(vendorID string) (babel, mix []string) {
	switch vendorID {
	case "10de":
		return []string{"cuda-stream", "hip-stream", "ocl-stream"}, []string{"mixbench-cuda", "mixbench-hip", "mixbench-ocl"}
	case "1002":
		return []string{"hip-stream", "ocl-stream"}, []string{"mixbench-hip", "mixbench-ocl"}
	}
	return []string{"ocl-stream"}, []string{"mixbench-ocl"}
}

// Preflight finds both tools for vendorID's devices and runs each at its
// smallest on the first, read by Run's parsers: BabelStream's --list and
// smallBabelStream, mixbench whole. Errors wrap ErrToolMissing or
// ErrToolBroken and name the tool.
func Preflight(ctx context.Context, c Config, vendorID string) (Tools, error) {
	babel, mix := defaultNames(vendorID)
	var t Tools
	var err error
	if t.BabelStream, err = find(c.BabelStream, babel, "--babelstream"); err != nil {
		return Tools{}, err
	}
	if t.Mixbench, err = find(c.Mixbench, mix, "--mixbench"); err != nil {
		return Tools{}, err
	}
	if t.Devices, err = listDevices(ctx, t.BabelStream); err != nil {
		return Tools{}, err
	}
	if _, err := runBabelStream(ctx, t.BabelStream, smallBabelStream, preflightTimeout); err != nil {
		return Tools{}, broken(t.BabelStream, smallBabelStream, err)
	}
	if _, err := runMixbench(ctx, t.Mixbench, -1, preflightTimeout); err != nil {
		return Tools{}, broken(t.Mixbench, nil, err)
	}
	return t, nil
}

func broken(bin string, args []string, err error) error {
	cmd := strings.Join(append([]string{bin}, args...), " ")
	if errors.Is(err, babelstream.ErrFormat) || errors.Is(err, mixbench.ErrFormat) {
		return fmt.Errorf("%w: %s: what it printed cannot be read: %w", ErrToolBroken, cmd, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrToolBroken, cmd, err)
}

// find resolves given, else the first of names, on PATH.
func find(given string, names []string, flag string) (string, error) {
	if given != "" {
		names = []string{given}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s (put it on PATH or pass %s PATH)", ErrToolMissing, strings.Join(names, ", "), flag)
}

func listDevices(ctx context.Context, bin string) ([]string, error) {
	out, err := toolrun.Run(ctx, "babelstream", bin, []string{"--list"}, toolEnv(bin), preflightTimeout)
	if err == nil {
		var names []string
		if names, err = babelstream.ParseList(bytes.NewReader(out)); err == nil {
			return names, nil
		}
	}
	return nil, broken(bin, []string{"--list"}, err)
}

func toolEnv(bin string) []string {
	if cuda(bin) {
		return toolrun.CUDAEnv(os.Environ())
	}
	return os.Environ()
}
