package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestMain lets scripts/fault-writes run Write on its own, under strace:
// with RUNDIR_WRITE=SRC:DST (and RUNDIR_OVERWRITE=1 to replace an earlier
// run) the test binary writes SRC's report files into DST as one run and
// exits 0, or 1 with the error. The goroutine is locked to one thread, so
// that every file syscall of the write comes from it and strace's
// "when=N" counts them in order.
func TestMain(m *testing.M) {
	if spec := os.Getenv("RUNDIR_WRITE"); spec != "" {
		runtime.LockOSThread()
		if err := writeFrom(spec, os.Getenv("RUNDIR_OVERWRITE") == "1"); err != nil {
			fmt.Fprintln(os.Stderr, "rundir:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// writeFrom copies the report files of the directory before the colon
// into the one after it, through Write.
func writeFrom(spec string, overwrite bool) error {
	src, dst, ok := cut(spec)
	if !ok {
		return fmt.Errorf("RUNDIR_WRITE=%q: want SRC:DST", spec)
	}
	names, err := filepath.Glob(filepath.Join(src, "*.appraisal.json"))
	if err != nil || len(names) == 0 {
		return fmt.Errorf("%s: no report files (%v)", src, err)
	}
	var files []File
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return err
		}
		files = append(files, File{Name: filepath.Base(n), Data: b})
	}
	return Write(dst, files, overwrite)
}

func cut(s string) (string, string, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return s[:i], s[i+1:], s[:i] != "" && s[i+1:] != ""
		}
	}
	return "", "", false
}
