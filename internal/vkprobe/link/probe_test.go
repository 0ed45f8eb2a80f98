package link

import (
	"testing"

	"github.com/everycycle/appraise/internal/vkprobe/vktest"
	"github.com/everycycle/appraise/schema"
)

// TestHostLinkProbe: the host link and launch figures carry their exact
// checks and probe names; measured again on the paths chosen, they come
// back on those paths.
func TestHostLinkProbe(t *testing.T) {
	d := vktest.Device(t)
	p := HostLinkProbe{Options: TransferOptions{Bytes: 8 << 20, Quick: true}}
	c, paths, err := p.Measure(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Again(paths).Run(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		c    any
	}{{"host to device", c.HostToDevice}, {"device to host", c.DeviceToHost}, {"launch", c.Launch},
		{"host to device again", again.HostToDevice}, {"launch again", again.Launch}} {
		if err := schema.Validate(c.c); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	for _, tr := range []*schema.Transfer{c.HostToDevice, c.DeviceToHost} {
		if tr.Probe != ProbeHostLink || !tr.Check.Passed || tr.Check.ErrorKind != "exact" || tr.Check.Elements == 0 || tr.TransferBytes != 8<<20 {
			t.Errorf("transfer %+v", tr)
		}
	}
	l := c.Launch
	if l.Probe != ProbeLaunch || l.UploadPath != paths.UploadPinned || l.DispatchPath != paths.Submit || l.Check.Reference != "closed-form" || !l.Check.Passed {
		t.Errorf("launch %+v, paths %+v", l, paths)
	}
	if len(c.Probes) != 2 || c.Probes[0].Name != ProbeHostLink || c.Probes[1].Name != ProbeLaunch {
		t.Errorf("probe records %+v", c.Probes)
	}
	if again.DeviceToHost.Path != paths.DeviceToHost || again.Launch.DispatchPath != paths.Submit || again.Launch.UploadPath != paths.UploadPinned {
		t.Errorf("again on other paths: %+v %+v, want %+v", again.DeviceToHost, again.Launch, paths)
	}
}
