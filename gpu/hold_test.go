package gpu

import "testing"

func TestHoldReleasesTwice(t *testing.T) {
	d := newDevice(t)
	release, err := Hold(d, 16<<20)
	if err != nil {
		t.Fatal(err)
	}
	release()
	release()
}
