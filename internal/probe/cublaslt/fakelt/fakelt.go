// Package fakelt builds a fake cuBLASLt and CUDA driver that compute on the
// CPU, for tests of the BLAS probe without a GPU (FAKE_LT_* variables steer it).
package fakelt

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Build compiles the fake with $CC (default gcc) into dir as
// libcublasLt.so.13 and libcuda.so.1, without a soname, and returns their paths.
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
