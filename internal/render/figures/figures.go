// Package figures flattens a capability vector into named scalar figures
// for tables and comparisons. Start with List.
package figures

import (
	"fmt"

	"github.com/everycycle/appraise/schema"
)

// Figure is one named scalar of a capability vector: the median of its
// samples, with Min and Max equal to it for a single value.
type Figure struct {
	Name           string  `json:"name"` // stable across reports, e.g. "memory.bandwidth.copy"
	Unit           string  `json:"unit"` // e.g. "bytes/s", "ops/s", "s", "bytes"
	Median         float64 `json:"median"`
	Min            float64 `json:"min"`
	Max            float64 `json:"max"`
	Samples        int     `json:"samples"`
	HigherIsBetter bool    `json:"higher_is_better"` // true for rates, false for latencies
}

// List returns every figure of v in a stable order.
func List(v schema.CapabilityVector) []Figure {
	var out []Figure
	add := func(name, unit string, s schema.Stat, higher bool) {
		out = append(out, Figure{Name: name, Unit: unit, Median: s.Median, Min: s.Min, Max: s.Max, Samples: s.Samples, HigherIsBetter: higher})
	}
	for _, p := range v.Precisions {
		add(PrecisionName(p), "ops/s", p.OpsPerS, true)
	}
	if m := v.Memory; m != nil {
		if m.PhysicalBytes != nil {
			add("memory.physical", "bytes", single(float64(*m.PhysicalBytes)), true)
		}
		if m.UsableBytes != nil {
			add("memory.usable", "bytes", single(float64(*m.UsableBytes)), true)
		}
		for _, b := range m.Bandwidth {
			add("memory.bandwidth."+b.Kernel, "bytes/s", b.BytesPerS, true)
		}
		if m.Integrity != nil {
			add("memory.integrity.errors", "words", single(float64(m.Integrity.Errors)), false)
		}
	}
	if ic := v.Interconnect; ic != nil {
		if t := ic.HostToDevice; t != nil {
			add("interconnect.host_to_device", "bytes/s", t.BytesPerS, true)
		}
		if t := ic.DeviceToHost; t != nil {
			add("interconnect.device_to_host", "bytes/s", t.BytesPerS, true)
		}
		for _, p := range ic.Peers {
			add("interconnect.peer."+p.Peer, "bytes/s", p.OneWay.BytesPerS, true)
			if p.BothWays != nil {
				add("interconnect.peer."+p.Peer+".both_ways", "bytes/s", p.BothWays.BytesPerS, true)
			}
			if p.LatencyS != nil {
				add("interconnect.peer."+p.Peer+".latency", "s", *p.LatencyS, false)
			}
		}
	}
	if l := v.LaunchOverhead; l != nil {
		add("launch.empty_dispatch", "s", l.EmptyDispatchS, false)
		add("launch.upload_1mib", "s", l.Upload1MiBS, false)
	}
	if t := v.Thermal; t != nil {
		add("thermal.throttled_fraction", "ratio", single(t.ThrottledFraction), true)
		if t.PowerLimitFraction != nil {
			add("thermal.power_limit_fraction", "ratio", single(*t.PowerLimitFraction), true)
		}
	}
	for _, r := range v.Roofline {
		add("roofline."+r.Precision, "ratio", single(r.Ratio), true)
		add("roofline."+r.Precision+".ridge", "ratio", single(r.RidgeRatio), true)
	}
	return out
}

// PrecisionName names a throughput figure by operation, types, scaling and
// matrix shape, e.g. "precision.fma.fp32" or "precision.gemm.fp16-fp32.matrix.16x8x16".
func PrecisionName(p schema.PrecisionThroughput) string {
	name := fmt.Sprintf("precision.%s.%s", p.Operation, p.InputType)
	if p.InputTypeB != "" && p.InputTypeB != p.InputType {
		name += "x" + p.InputTypeB
	}
	if p.AccumulatorType != p.InputType || (p.OutputType != "" && p.OutputType != p.AccumulatorType) {
		name += "-" + p.AccumulatorType
	}
	if p.OutputType != "" && p.OutputType != p.AccumulatorType {
		name += "-" + p.OutputType
	}
	if p.Scaling != "" {
		name += "." + p.Scaling
	}
	if p.MatrixEngine {
		name += ".matrix"
	}
	if s := p.Shape; s != nil {
		name += fmt.Sprintf(".%dx%dx%d", s.M, s.N, s.K)
	}
	return name
}

func single(v float64) schema.Stat { return schema.Stat{Samples: 1, Median: v, Min: v, Max: v} }

// Box returns a box's host baseline ("host.…") and simultaneous host links
// ("host.link.<address>.…", "host.link.total.…").
func Box(b schema.BoxPayload) []Figure {
	var out []Figure
	add := func(name, unit string, s schema.Stat) {
		out = append(out, Figure{Name: name, Unit: unit, Median: s.Median, Min: s.Min, Max: s.Max, Samples: s.Samples, HigherIsBetter: true})
	}
	if h := b.HostBaseline; h != nil {
		for _, bw := range h.Bandwidth {
			add("host.bandwidth."+bw.Kernel, "bytes/s", bw.BytesPerS)
		}
		for _, p := range h.Precisions {
			add("host."+p.Operation+"."+p.InputType, "ops/s", p.OpsPerS)
		}
	}
	if l := b.HostLinks; l != nil {
		for _, d := range l.Devices {
			add("host.link."+d.BusAddress+".host_to_device", "bytes/s", d.HostToDevice.BytesPerS)
			add("host.link."+d.BusAddress+".device_to_host", "bytes/s", d.DeviceToHost.BytesPerS)
		}
		add("host.link.total.host_to_device", "bytes/s", single(l.HostToDeviceBytesPerS))
		add("host.link.total.device_to_host", "bytes/s", single(l.DeviceToHostBytesPerS))
	}
	return out
}
