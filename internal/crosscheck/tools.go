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
)

// ErrToolMissing is wrapped when a tool is neither on PATH nor where its
// flag points; ErrToolBroken when it is there but does not start.
var (
	ErrToolMissing = errors.New("cross-check tool not found")
	ErrToolBroken  = errors.New("cross-check tool does not start")
)

// startTimeout bounds each start check: a tool that cannot list its
// devices or print its banner in this time will not run a benchmark.
const startTimeout = 30 * time.Second

// Tools are the tool binaries found and started for one vendor's devices.
type Tools struct {
	// BabelStream and Mixbench are the binaries' paths.
	BabelStream, Mixbench string
	// Devices are the device names BabelStream's --list printed, in its
	// order.
	Devices []string
}

// cuda reports whether a binary is a CUDA build (named so by both
// projects: cuda-stream, mixbench-cuda); those number devices in PCI bus
// order, so any of several identical cards can be told apart.
func cuda(bin string) bool { return strings.Contains(filepath.Base(bin), "cuda") }

// defaultNames are the tools' build names to look for on PATH for a
// device vendor (lowercase hex PCI id), in order of preference: the
// vendor's own API, then OpenCL.
func defaultNames(vendorID string) (babel, mix []string) {
	switch vendorID {
	case "10de":
		return []string{"cuda-stream", "hip-stream", "ocl-stream"}, []string{"mixbench-cuda", "mixbench-hip", "mixbench-ocl"}
	case "1002":
		return []string{"hip-stream", "ocl-stream"}, []string{"mixbench-hip", "mixbench-ocl"}
	}
	return []string{"ocl-stream"}, []string{"mixbench-ocl"}
}

// Preflight finds both tools for devices of vendorID and checks that
// each starts: BabelStream lists its devices (--list), mixbench prints its
// banner. It takes seconds, so it runs before any probe: a tool missing
// or broken is known before minutes of probing. Errors wrap
// ErrToolMissing or ErrToolBroken.
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
	if t.Devices, err = startBabelStream(ctx, t.BabelStream); err != nil {
		return Tools{}, err
	}
	if err := startMixbench(ctx, t.Mixbench); err != nil {
		return Tools{}, err
	}
	return t, nil
}

// find resolves a tool given by path or name, else the first of its
// default names on PATH.
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

func startBabelStream(ctx context.Context, bin string) ([]string, error) {
	out, err := toolrun.Run(ctx, "babelstream", bin, []string{"--list"}, toolEnv(bin), startTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %s --list: %w", ErrToolBroken, bin, err)
	}
	names, err := babelstream.ParseList(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("%w: %s --list: %w", ErrToolBroken, bin, err)
	}
	return names, nil
}

// startMixbench runs mixbench with two arguments, which it answers with
// its banner and usage and exit status 1 without touching a device
// (main-cuda.cpp; builds that ignore arguments start the benchmark, cut
// short by the timeout once the banner is out). A banner means the
// binary and its runtime libraries load.
func startMixbench(ctx context.Context, bin string) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version", "--version")
	cmd.Env = toolEnv(bin)
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if !strings.HasPrefix(out.String(), "mixbench") {
		return fmt.Errorf("%w: %s printed no mixbench banner (%v): %q", ErrToolBroken, bin, runErr, head(out.String()))
	}
	return nil
}

func head(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// toolEnv is the environment a tool runs in: CUDA builds number devices
// in PCI bus order.
func toolEnv(bin string) []string {
	if cuda(bin) {
		return toolrun.CUDAEnv(os.Environ())
	}
	return os.Environ()
}
