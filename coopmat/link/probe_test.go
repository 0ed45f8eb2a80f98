package link

import (
	"testing"

	"github.com/everycycle/appraise/coopmat/vk/vktest"
	"github.com/everycycle/appraise/schema"
)

// TestHostLinkProbe: the host link and launch figures carry their exact
// checks and probe names, each on its family's kept path, and name no
// other path.
func TestHostLinkProbe(t *testing.T) {
	d := vktest.Device(t)
	r, err := MeasureTransfer(t.Context(), d, quick(TransferOptions{Bytes: 8 << 20}))
	if err != nil {
		t.Fatal(err)
	}
	c := linkContribution(r, false)
	for _, c := range []struct {
		name string
		c    any
	}{{"host to device", c.HostToDevice}, {"device to host", c.DeviceToHost}, {"launch", c.Launch}} {
		if err := schema.Validate(c.c); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	for _, tr := range []*schema.Transfer{c.HostToDevice, c.DeviceToHost} {
		if tr.Probe != ProbeHostLink || !tr.Check.Passed || tr.Check.ErrorKind != "exact" || tr.Check.Elements == 0 || tr.TransferBytes != 8<<20 || tr.OtherPath != nil {
			t.Errorf("transfer %+v", tr)
		}
	}
	if c.HostToDevice.Path != r.HostToDevice.Path || c.DeviceToHost.Path != r.DeviceToHost.Path {
		t.Errorf("paths %s, %s; want %s, %s", c.HostToDevice.Path, c.DeviceToHost.Path, r.HostToDevice.Path, r.DeviceToHost.Path)
	}
	l := c.Launch
	if l.Probe != ProbeLaunch || l.UploadPath != r.Upload1MiBPinned.Path || l.DispatchPath != r.EmptySubmit.Path || l.Check.Reference != "closed-form" || !l.Check.Passed {
		t.Errorf("launch %+v", l)
	}
	if len(l.OtherPaths) != 0 {
		t.Errorf("other paths %+v", l.OtherPaths)
	}
	if len(c.Probes) != 2 || c.Probes[0] != (schema.ProbeRecord{Name: ProbeHostLink, Version: Version}) || c.Probes[1].Name != ProbeLaunch {
		t.Errorf("probe records %+v", c.Probes)
	}
}
