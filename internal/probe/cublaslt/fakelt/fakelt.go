// Package fakelt builds the fake cuBLASLt and CUDA driver of
// internal/probe/cublaslt/testdata/fakelt.c for tests, so that tests of other
// packages (the appraisal's merge of the BLAS probe) run the whole probe
// without a GPU. The fake's behaviour is set by its environment variables,
// documented at the top of fakelt.c (FAKE_LT_MODE, FAKE_LT_ALGOS, …).
package fakelt

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Build compiles the fake into dir as libcublasLt.so.13 and links it as
// libcuda.so.1, and returns the two paths. It is built without a soname,
// so loading it by path never satisfies a later dlopen of the real
// sonames. $CC is the compiler (default gcc).
func Build(dir string) (blas, driver string, err error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", "", errors.New("fakelt: cannot locate the fake's source")
	}
	src := filepath.Join(filepath.Dir(self), "..", "testdata", "fakelt.c")
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	blas = filepath.Join(dir, "libcublasLt.so.13")
	out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", blas, src, "-lm").CombinedOutput()
	if err != nil {
		return "", "", fmt.Errorf("fakelt: %s %s: %w\n%s", cc, src, err, out)
	}
	driver = filepath.Join(dir, "libcuda.so.1")
	if err := os.Link(blas, driver); err != nil {
		return "", "", fmt.Errorf("fakelt: %w", err)
	}
	return blas, driver, nil
}
