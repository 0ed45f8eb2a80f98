package export

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/everycycle/appraise/internal/render/figures"
	"github.com/everycycle/appraise/schema"
)

// family is one metric family of the textfile.
type family struct {
	name, help string
	samples    []sample
}

type sample struct {
	labels []string // name, value, name, value, …
	value  float64
}

// metrics holds families in the order they are first named.
type metrics struct {
	order []*family
	byKey map[string]*family
	seen  map[string]int // series → index in its family's samples
}

// add records a sample; help is taken from the family's first call, and a
// series given twice keeps the larger value.
func (m *metrics) add(name, help string, value float64, labels ...string) {
	f := m.byKey[name]
	if f == nil {
		f = &family{name: name, help: help}
		m.byKey[name] = f
		m.order = append(m.order, f)
	}
	key := name + "\x00" + strings.Join(labels, "\x00")
	if i, ok := m.seen[key]; ok {
		f.samples[i].value = max(f.samples[i].value, value)
		return
	}
	m.seen[key] = len(f.samples)
	f.samples = append(f.samples, sample{labels: labels, value: value})
}

// Prometheus returns a node_exporter textfile of gauges in base units for
// the output of Devices, each series labelled with bus_address and
// vendor_device. Two devices with equal labels are an error.
func Prometheus(cards []Card) ([]byte, error) {
	m := &metrics{byKey: map[string]*family{}, seen: map[string]int{}}
	m.add("appraise_cards", "Verified card reports exported: one per device.", float64(len(cards)))
	ids := map[string]string{}
	for _, c := range cards {
		id := c.Payload.Capability.Identity
		dev := []string{"bus_address", id.BusAddress, "vendor_device", id.VendorID + ":" + id.DeviceID}
		key := strings.Join(dev, "\x00")
		if prev, ok := ids[key]; ok {
			return nil, fmt.Errorf("export: %s and %s: two devices with the same bus address and ids", prev, c.Path)
		}
		ids[key] = c.Path
		if err := cardMetrics(m, c, dev); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	for _, f := range m.order {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", f.name, escapeHelp(f.help), f.name)
		for _, s := range f.samples {
			b.WriteString(f.name)
			writeLabels(&b, s.labels)
			b.WriteByte(' ')
			b.WriteString(formatValue(s.value))
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

func cardMetrics(m *metrics, c Card, dev []string) error {
	at, err := c.ProbedAt()
	if err != nil {
		return err
	}
	v := c.Payload.Capability
	with := func(more ...string) []string { return append(append([]string{}, dev...), more...) }
	m.add("appraise_card_info", "Identity of a verified card's device and the card's provenance (metadata, never an input to scoring); always 1.", 1,
		with("subsystem", joinIDs(v.Identity.SubsystemVendorID, v.Identity.SubsystemDeviceID),
			"software", strconv.FormatBool(v.Identity.Software),
			"tenant", c.Tenant, "key_fingerprint", c.KeyFingerprint, "card_sha256", c.SHA256(),
			"driver_version", v.Environment.DriverVersion, "probe_suite_version", v.Environment.ProbeSuiteVersion,
			"mode", v.Environment.Mode)...)
	m.add("appraise_card_probed_timestamp_seconds", "When the card's appraisal started, in seconds since the Unix epoch.", float64(at.Unix()), dev...)
	for _, p := range v.Precisions {
		name := strings.TrimPrefix(figures.PrecisionName(p), "precision.")
		m.add("appraise_precision_ops_per_second", "Sustained operations per second at one precision (an FMA counts 2), median of the timed samples.",
			p.OpsPerS.Median, with("precision", name, "probe", p.Probe)...)
	}
	memoryMetrics(m, v.Memory, with)
	linkMetrics(m, v.Interconnect, with)
	if l := v.LaunchOverhead; l != nil {
		help := "Small-work latency: an empty dispatch's round trip, or a 1 MiB upload, in seconds."
		m.add("appraise_launch_overhead_seconds", help, l.EmptyDispatchS.Median, with("figure", "empty_dispatch", "probe", l.Probe)...)
		m.add("appraise_launch_overhead_seconds", help, l.Upload1MiBS.Median, with("figure", "upload_1mib", "probe", cmpOr(l.UploadProbe, l.Probe))...)
	}
	thermalMetrics(m, v.Thermal, with)
	for _, r := range v.Roofline {
		m.add("appraise_roofline_ratio", "Median over a roofline sweep of achieved over modelled throughput (1 = on the roofline).", r.Ratio, with("precision", r.Precision, "probe", r.Probe)...)
		m.add("appraise_roofline_ridge_ratio", "Achieved over modelled throughput at the sweep's point nearest the ridge.", r.RidgeRatio, with("precision", r.Precision, "probe", r.Probe)...)
	}
	return nil
}

func memoryMetrics(m *metrics, mem *schema.Memory, with func(...string) []string) {
	if mem == nil {
		return
	}
	if mem.PhysicalBytes != nil {
		m.add("appraise_memory_physical_bytes", "Device-local memory the driver reports, in bytes.", float64(*mem.PhysicalBytes), with()...)
	}
	if mem.UsableBytes != nil {
		m.add("appraise_memory_usable_bytes", "Device memory that could actually be allocated, in bytes.", float64(*mem.UsableBytes), with()...)
	}
	for _, b := range mem.Bandwidth {
		m.add("appraise_memory_bandwidth_bytes_per_second", "Sustained device-memory bandwidth per kernel (read, write, copy, triad), median, in bytes per second.",
			b.BytesPerS.Median, with("kernel", b.Kernel, "probe", b.Probe)...)
	}
	if i := mem.Integrity; i != nil {
		m.add("appraise_memory_integrity_errors", "Words that read back wrong in the memory integrity probe.", float64(i.Errors), with("probe", i.Probe)...)
		m.add("appraise_memory_integrity_tested_bytes", "Device memory the integrity probe's patterns covered, in bytes.", float64(i.BytesTested), with("probe", i.Probe)...)
	}
}

func linkMetrics(m *metrics, ic *schema.Interconnect, with func(...string) []string) {
	if ic == nil {
		return
	}
	host := "Host link bandwidth, measured with the other devices idle, median, in bytes per second."
	if t := ic.HostToDevice; t != nil {
		m.add("appraise_host_link_bytes_per_second", host, t.BytesPerS.Median, with("direction", "host_to_device", "probe", t.Probe)...)
	}
	if t := ic.DeviceToHost; t != nil {
		m.add("appraise_host_link_bytes_per_second", host, t.BytesPerS.Median, with("direction", "device_to_host", "probe", t.Probe)...)
	}
	peer := "Bandwidth from this device to a peer, one way or while the peer sends back, median, in bytes per second."
	for _, p := range ic.Peers {
		m.add("appraise_peer_link_bytes_per_second", peer, p.OneWay.BytesPerS.Median, with("peer", p.Peer, "mode", "one_way", "probe", p.OneWay.Probe)...)
		if p.BothWays != nil {
			m.add("appraise_peer_link_bytes_per_second", peer, p.BothWays.BytesPerS.Median, with("peer", p.Peer, "mode", "both_ways", "probe", p.BothWays.Probe)...)
		}
		if p.LatencyS != nil {
			m.add("appraise_peer_link_latency_seconds", "Small-transfer latency from this device to a peer, median, in seconds.", p.LatencyS.Median, with("peer", p.Peer, "probe", p.OneWay.Probe)...)
		}
	}
}

func thermalMetrics(m *metrics, t *schema.ThermalEnvelope, with func(...string) []string) {
	if t == nil {
		return
	}
	m.add("appraise_thermal_soak_seconds", "How long the sustained load ran, in seconds.", t.SoakS, with("probe", t.Probe)...)
	m.add("appraise_thermal_throttled_ratio", "Sustained over cold throughput of the soak (1 = no loss).", t.ThrottledFraction, with("probe", t.Probe)...)
	if t.SustainedPowerW != nil {
		m.add("appraise_thermal_sustained_power_watts", "Median board power over the soak's last quarter, in watts.", *t.SustainedPowerW, with("probe", t.Probe)...)
	}
	if t.PeakTemperatureC != nil {
		m.add("appraise_thermal_peak_temperature_celsius", "Hottest reading during the soak, in degrees Celsius.", *t.PeakTemperatureC, with("probe", t.Probe)...)
	}
}

// formatValue writes whole numbers in full, others in the shortest exact form.
func formatValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func joinIDs(vendor, device string) string {
	if vendor == "" || device == "" {
		return ""
	}
	return vendor + ":" + device
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// writeLabels writes {name="value",…}, escaped, leaving out empty values.
func writeLabels(b *bytes.Buffer, pairs []string) {
	first := true
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			continue
		}
		if first {
			b.WriteByte('{')
			first = false
		} else {
			b.WriteByte(',')
		}
		b.WriteString(pairs[i])
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(pairs[i+1]))
		b.WriteByte('"')
	}
	if !first {
		b.WriteByte('}')
	}
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeHelp(s string) string { return helpEscaper.Replace(s) }
