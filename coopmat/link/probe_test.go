package link

import (
	"testing"

	"github.com/everycycle/appraise/coopmat/vk/vktest"
	"github.com/everycycle/appraise/schema"
)

// TestHostLinkProbe: the host link and launch figures carry their exact
// checks and probe names, each on its family's kept path with the other
// candidates named beside it.
func TestHostLinkProbe(t *testing.T) {
	d := vktest.Device(t)
	r, err := MeasureTransfer(t.Context(), d, TransferOptions{Bytes: 8 << 20, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	c := linkContribution(r)
	for _, c := range []struct {
		name string
		c    any
	}{{"host to device", c.HostToDevice}, {"device to host", c.DeviceToHost}, {"launch", c.Launch}} {
		if err := schema.Validate(c.c); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	for _, tr := range []*schema.Transfer{c.HostToDevice, c.DeviceToHost} {
		if tr.Probe != ProbeHostLink || !tr.Check.Passed || tr.Check.ErrorKind != "exact" || tr.Check.Elements == 0 || tr.TransferBytes != 8<<20 || tr.OtherPath == nil {
			t.Errorf("transfer %+v", tr)
		}
	}
	if c.HostToDevice.Path != r.HostToDevice.Path || c.HostToDevice.OtherPath.Path != r.HostToDevice.Others[0].Path {
		t.Errorf("host to device %s beside %s, want %s beside %s", c.HostToDevice.Path, c.HostToDevice.OtherPath.Path, r.HostToDevice.Path, r.HostToDevice.Others[0].Path)
	}
	l := c.Launch
	if l.Probe != ProbeLaunch || l.UploadPath != r.Upload1MiBPinned.Path || l.DispatchPath != r.EmptySubmit.Path || l.Check.Reference != "closed-form" || !l.Check.Passed {
		t.Errorf("launch %+v", l)
	}
	if want := len(r.EmptySubmit.Others) + len(r.Upload1MiBPinned.Others); len(l.OtherPaths) != want {
		t.Errorf("other paths %+v, want %d", l.OtherPaths, want)
	}
	if tr := c.Trial; tr == nil || tr.HostToDevice != r.HostToDevice.Trial.Median || tr.DeviceToHost != r.DeviceToHost.Trial.Median ||
		tr.EmptyDispatchS != r.EmptySubmit.Trial.Median || tr.Upload1MiBS != r.Upload1MiBPinned.Trial.Median || tr.HostToDevice <= 0 || tr.EmptyDispatchS <= 0 {
		t.Errorf("trial %+v, want the kept paths' trial medians", tr)
	}
	if len(c.Probes) != 2 || c.Probes[0].Name != ProbeHostLink || c.Probes[1].Name != ProbeLaunch {
		t.Errorf("probe records %+v", c.Probes)
	}
}
