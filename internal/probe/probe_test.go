package probe

import "testing"

// TestLinkTrialJoin: a later probe's measured trial figures replace an
// earlier one's; its unmeasured (zero) figures leave them.
func TestLinkTrialJoin(t *testing.T) {
	link := LinkTrial{HostToDevice: 50e9, DeviceToHost: 52e9}
	launch := LinkTrial{EmptyDispatchS: 17e-6, Upload1MiBS: 35e-6}
	got := LinkTrial{}.Join(link).Join(launch)
	want := LinkTrial{HostToDevice: 50e9, DeviceToHost: 52e9, EmptyDispatchS: 17e-6, Upload1MiBS: 35e-6}
	if got != want {
		t.Errorf("joined %+v, want %+v", got, want)
	}
	if again := got.Join(LinkTrial{HostToDevice: 40e9}); again.HostToDevice != 40e9 || again.DeviceToHost != 52e9 || again.EmptyDispatchS != 17e-6 {
		t.Errorf("a later link trial: %+v", again)
	}
}
