package schema

import (
	"cmp"
	"fmt"

	"github.com/go-playground/validator/v10"
)

type optional struct {
	path    string
	present bool
}

// optionalFields lists the optional parts of c that apply, none inside an absent one.
func optionalFields(c *CapabilityVector) []optional {
	opts := []optional{
		{"precisions", len(c.Precisions) > 0},
		{"memory", c.Memory != nil},
		{"interconnect", c.Interconnect != nil},
		{"launch_overhead", c.LaunchOverhead != nil},
		{"thermal", c.Thermal != nil},
		{"roofline", len(c.Roofline) > 0},
		{"cross_checks", len(c.CrossChecks) > 0},
		{"environment.ambient_c", c.Environment.AmbientC != nil},
		{"identity.bus_address", c.Identity.BusAddress != ""},
		{"identity.vbios_hash", c.Identity.VBIOSHash != ""},
		{"identity.serial", c.Identity.Serial != ""},
		{"identity.uuid", c.Identity.UUID != ""},
	}
	if m := c.Memory; m != nil {
		opts = append(opts,
			optional{"memory.physical_bytes", m.PhysicalBytes != nil},
			optional{"memory.usable_bytes", m.UsableBytes != nil},
			optional{"memory.bandwidth", len(m.Bandwidth) > 0},
			optional{"memory.integrity", m.Integrity != nil},
		)
	}
	if t := c.Thermal; t != nil {
		opts = append(opts,
			optional{"thermal.time_to_throttle_s", t.TimeToThrottleS != nil},
			optional{"thermal.sustained_power_w", t.SustainedPowerW != nil},
			optional{"thermal.peak_temperature_c", t.PeakTemperatureC != nil},
		)
	}
	if ic := c.Interconnect; ic != nil {
		opts = append(opts,
			optional{"interconnect.host_to_device", ic.HostToDevice != nil},
			optional{"interconnect.device_to_host", ic.DeviceToHost != nil},
			optional{"interconnect.peers", len(ic.Peers) > 0},
		)
	}
	return opts
}

// vectorCompleteness checks each optional part is present or listed once in NotMeasured.
func vectorCompleteness(sl validator.StructLevel) {
	c := sl.Current().Interface().(CapabilityVector)
	checkOmissions(sl, optionalFields(&c), c.NotMeasured)
	consistentUnlessSoftware(sl, &c)
	if m, su := c.Memory, c.Environment.SharedUse; m != nil && m.UsableLimitedBy == UsableOtherProcesses && (su == nil || len(su.Processes) == 0) {
		report(sl, "usable_limited_by is %s but shared_use lists no process", UsableOtherProcesses)
	}
}

// boxCompleteness applies the same rule to a box payload.
func boxCompleteness(sl validator.StructLevel) {
	b := sl.Current().Interface().(BoxPayload)
	opts := []optional{{"ambient_c", b.AmbientC != nil}, {"host_baseline", b.HostBaseline != nil}}
	if h := b.HostBaseline; h != nil {
		opts = append(opts, optional{"host_baseline.bandwidth", len(h.Bandwidth) > 0})
	}
	if len(b.DriverVersions) > 1 {
		opts = append(opts, optional{"host_links", b.HostLinks != nil})
	} else if b.HostLinks != nil {
		report(sl, "host_links in a run of one device")
	}
	checkOmissions(sl, opts, b.NotMeasured)
}

func checkOmissions(sl validator.StructLevel, opts []optional, omitted []Omission) {
	listed := make(map[string]bool, len(omitted))
	for _, o := range omitted {
		if listed[o.Field] {
			report(sl, "field %q is listed twice", o.Field)
		}
		listed[o.Field] = true
	}
	known := make(map[string]bool, len(opts))
	for _, o := range opts {
		known[o.path] = true
		switch {
		case o.present && listed[o.path]:
			report(sl, "%q is present but also listed as not measured", o.path)
		case !o.present && !listed[o.path]:
			report(sl, "%q is absent without a reason in not_measured", o.path)
		}
	}
	for _, o := range omitted {
		if !known[o.Field] {
			report(sl, "%q is not an optional field here", o.Field)
		}
	}
}

func report(sl validator.StructLevel, format string, args ...any) {
	sl.ReportError(nil, "not_measured", "NotMeasured", "complete", fmt.Sprintf(format, args...))
}

// AbsentFields returns, in a fixed order, the JSON path of every absent
// optional part of c, each of which NotMeasured must list.
func AbsentFields(c *CapabilityVector) []string {
	var out []string
	for _, o := range optionalFields(c) {
		if !o.present {
			out = append(out, o.path)
		}
	}
	return out
}

// crossCheckWithin refuses a cross-check outside its tolerance.
func crossCheckWithin(sl validator.StructLevel) {
	c := sl.Current().Interface().(CrossCheck)
	if !c.Agrees() {
		sl.ReportError(nil, "relative_delta", "RelativeDelta", "complete",
			fmt.Sprintf("%s disagrees with %s %s by %+.1f%% (tolerance %.1f%%, %s)", c.Figure, c.Tool, c.ToolFigure, c.RelativeDelta*100, c.Tolerance*100, cmp.Or(c.Rule, RuleWithin)))
	}
}
