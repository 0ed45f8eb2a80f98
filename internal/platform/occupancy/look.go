package occupancy

import (
	"math"
	"slices"
	"time"

	"github.com/everycycle/appraise/schema"
)

// look is one reading of one device.
type look struct {
	when    time.Time
	at      float64                // when, in seconds since the watch began
	procs   []schema.SharedProcess // other processes its vendor lists now
	util    []schema.UtilizationSample
	clients Clients // its DRM clients, ours included; nil when /proc was unreadable
}

// lookAll reads each of devs once, scanning /proc once for all.
func (w *Watch) lookAll(devs []*device, stage string) []look {
	when := w.env.now()
	at := math.Round(when.Sub(w.start).Seconds()*1000) / 1000
	stage = truncate(stage, maxStageRunes)
	all, scanErr := ScanClients(w.env.Root)
	out := make([]look, len(devs))
	for i, d := range devs {
		l := look{when: when, at: at}
		w.readVendor(d, &l, stage)
		if d.BDF != "" {
			w.readKernel(d, &l, stage, all, scanErr)
		}
		out[i] = l
	}
	return out
}

func (w *Watch) readVendor(d *device, l *look, stage string) {
	if d.Vendor == nil {
		return
	}
	ps, err := d.Vendor.Processes()
	if err != nil {
		d.note(err.Error())
	} else {
		d.methods[schema.SharedNVML] = true
	}
	for _, p := range ps {
		pid := int(p.PID)
		if pid <= 0 || w.ours(pid) {
			continue
		}
		sp := schema.SharedProcess{PID: p.PID, Name: Comm(w.env.Root, pid), Source: schema.SharedNVML, FirstSeenS: l.at}
		if p.MemoryKnown {
			sp.UsedMemoryBytes = &p.UsedMemoryBytes
		}
		l.procs = append(l.procs, sp)
	}
	if pct, err := d.Vendor.UtilizationPercent(); err == nil {
		d.methods[schema.SharedNVML] = true
		l.util = append(l.util, schema.UtilizationSample{AtS: l.at, Stage: stage, GPUPercent: pct, Source: schema.SharedNVML})
	}
}

func (w *Watch) readKernel(d *device, l *look, stage string, all Clients, scanErr error) {
	if scanErr != nil {
		d.note("DRM client statistics: " + scanErr.Error())
	} else {
		l.clients = all.Of(d.BDF)
		for _, c := range l.clients {
			if c.Engines {
				d.methods[schema.SharedDRMFdinfo] = true
			}
		}
	}
	if pct, err := BusyPercent(w.env.Root, d.BDF); err == nil && pct >= 0 && pct <= 100 {
		d.methods[schema.SharedGPUBusyPercent] = true
		l.util = append(l.util, schema.UtilizationSample{AtS: l.at, Stage: stage, GPUPercent: pct, Source: schema.SharedGPUBusyPercent})
	}
}

// activeProcs are the processes behind the DRM clients that used the device
// between two readings, once each; nil when either reading is missing.
func (w *Watch) activeProcs(before, after Clients, at float64) []schema.SharedProcess {
	if before == nil || after == nil {
		return nil
	}
	var out []schema.SharedProcess
	for _, c := range Active(before, after, w.ours) {
		i := slices.IndexFunc(out, func(p schema.SharedProcess) bool { return int(p.PID) == c.PID })
		if i < 0 {
			out = append(out, schema.SharedProcess{PID: uint32(c.PID), Name: Comm(w.env.Root, c.PID), Source: schema.SharedDRMFdinfo, FirstSeenS: at})
			i = len(out) - 1
		}
		if c.MemoryKnown {
			m := c.MemoryBytes
			if prev := out[i].UsedMemoryBytes; prev != nil {
				m += *prev
			}
			out[i].UsedMemoryBytes = &m
		}
	}
	slices.SortFunc(out, func(a, b schema.SharedProcess) int { return int(a.PID) - int(b.PID) })
	return out
}

// ours reports whether pid is the caller's process or its descendant.
func (w *Watch) ours(pid int) bool { return Descends(w.env.Root, pid, w.env.Self) }

// note records why a method did not work, once.
func (d *device) note(why string) {
	if !slices.Contains(d.notes, why) {
		d.notes = append(d.notes, why)
	}
}
