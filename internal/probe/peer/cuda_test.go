package peer

import (
	"context"
	"errors"
	"testing"
)

// On a host without libcuda.so.1 (as in CI), the CUDA path says so.
func TestNoCUDA(t *testing.T) {
	st, err := DetectCUDA("0000:00:05.0", "0000:00:06.0")
	if err != nil {
		t.Fatal(err)
	}
	if st.Loaded {
		t.Skip("libcuda.so.1 is present on this host")
	}
	if st.Why == "" || Choose(Availability{CUDA: st}).Path != PathHostStaged {
		t.Errorf("status %+v", st)
	}
	_, err = MeasurePair(context.Background(), "0000:00:05.0", "0000:00:06.0", 0)
	if !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("MeasurePair err = %v, want ErrNoCUDA", err)
	}
	t.Log(err)
}
