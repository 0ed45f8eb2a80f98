//go:build linux && cgo

package cuda

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/everycycle/appraise/internal/probe/cublaslt/fakelt"
)

// A library that is not there is a *LoadError wrapping ErrUnavailable,
// naming the path.
func TestOpenMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libcuda.so.1")
	_, err := Open(path)
	var le *LoadError
	if !errors.As(err, &le) || !errors.Is(err, ErrUnavailable) || le.Path != path {
		t.Fatalf("err = %v", err)
	}
}

// Against the fake driver (cublaslt's testdata/fakelt.c, which keeps
// device memory on the host): one device found by its bus address and
// named, a round trip through device memory, a timed stream, no peer.
func TestDriverFake(t *testing.T) {
	_, lib, err := fakelt.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_CUDA_BUSID", "0000:00:06.0")
	drv, err := Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	n, err := drv.Count()
	if err != nil || n != 1 {
		t.Fatalf("count %d, %v", n, err)
	}
	dev, err := drv.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := drv.BusID(dev); err != nil || id != "0000:00:06.0" {
		t.Errorf("bus id %q, %v", id, err)
	}
	if name, err := drv.Name(dev); err != nil || name != "Fake GPU" {
		t.Errorf("name %q, %v", name, err)
	}
	if _, err := drv.Device(1); err == nil {
		t.Error("device 1 of 1 found")
	}
	if ok, err := drv.CanAccessPeer(dev, dev); err != nil || ok {
		t.Errorf("peer access %v, %v", ok, err)
	}
	ctx, err := drv.Retain(dev)
	if err != nil || !ctx.Valid() {
		t.Fatal(err)
	}
	defer drv.Release(dev)
	if err := drv.SetCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := drv.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Free(p)
	in, out := []byte("sixteen bytes..."), make([]byte, 16)
	if err := drv.HtoD(p, in); err != nil {
		t.Fatal(err)
	}
	if err := drv.DtoH(out, p); err != nil || !bytes.Equal(in, out) {
		t.Fatalf("round trip %q, %v", out, err)
	}
	s, err := drv.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer drv.DestroyStream(s)
	var ev [2]Event
	for i := range ev {
		if ev[i], err = drv.NewEvent(); err != nil {
			t.Fatal(err)
		}
		defer drv.DestroyEvent(ev[i])
		if err := drv.Record(ev[i], s); err != nil {
			t.Fatal(err)
		}
	}
	if err := drv.WaitEvent(ev[1]); err != nil {
		t.Fatal(err)
	}
	if sec, err := drv.Elapsed(ev[0], ev[1]); err != nil || sec < 0 {
		t.Errorf("elapsed %g, %v", sec, err)
	}
	err = drv.EnablePeer(ctx)
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != 801 || ce.Name != "CUDA_ERROR_FAKE" {
		t.Errorf("enable peer on the fake: %v", err)
	}
}
