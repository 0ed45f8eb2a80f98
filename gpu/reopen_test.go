package gpu

import (
	"context"
	"testing"
)

// TestReopenOnOneInstance: a device opened on an instance after another
// device of the same instance compiled kernels and was released still
// runs work. With wgpu-native v22's derived pipeline layouts the first
// device was never freed, its id stayed taken while its queue's was
// reused, and every submit of the second device failed ("a resource with
// a different device"): the appraisal of a second GPU died that way.
func TestReopenOnOneInstance(t *testing.T) {
	inst, err := NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Release()
	as, err := inst.Adapters()
	if err != nil || len(as) == 0 {
		t.Skipf("no adapter: %v", err)
	}
	first, err := Open(inst, as[0], Options{Effort: quickEffortOn(as[0])})
	if err != nil {
		t.Fatal(err)
	}
	s, err := first.compile("launch", launchEntry)
	if err != nil {
		t.Fatal(err)
	}
	s.release()
	first.Release()
	second, err := Open(inst, as[0], Options{Effort: quickEffortOn(as[0])})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	if _, err := second.emptyRoundTripS(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
}
