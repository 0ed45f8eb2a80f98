package appraisal

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/host"
	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/internal/platform/thermal"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// firstProbes are the WebGPU probes of p before capacity and memtest.
func firstProbes(p DevicePlan) []probe.Probe[*gpu.Device] {
	return []probe.Probe[*gpu.Device]{gpu.StreamProbe{}, gpu.ALUProbe{}, p.roofline}
}

// capacityProbe is c's capacity probe, keeping its chunks in held.
func capacityProbe(c Candidate, held *gpu.HeldMemory) gpu.CapacityProbe {
	var budget uint64
	if c.Vulkan != nil {
		budget = c.Vulkan.DeviceLocalBudgetBytes
	}
	return gpu.CapacityProbe{BudgetBytes: budget, Hold: held}
}

// memtestProbe is the memtest of held, at most capBytes (0: no cap).
func memtestProbe(capBytes uint64, steps func(stage string, done, total float64), capacity *probe.Contribution, held *gpu.HeldMemory) (gpu.IntegrityProbe, error) {
	if capacity == nil || capacity.Usable == nil {
		return gpu.IntegrityProbe{}, errors.New("memtest needs the usable memory measured first")
	}
	return gpu.IntegrityProbe{UsableBytes: capacity.Usable.Bytes, CapBytes: capBytes, Steps: steps, Held: held}, nil
}

// fmaSoakProbe is the FMA soak of c's plan p, with c's driver telemetry.
func fmaSoakProbe(c Candidate, p DevicePlan, steps func(stage string, done, total float64), lib *nvml.Lib) gpu.SoakProbe {
	return gpu.SoakProbe{Duration: p.soak, Telemetry: driverTelemetry(lib, c, p.sysfsRoot), Steps: steps}
}

// driverTelemetry is NVML for an NVIDIA card, else hwmon, else nil.
func driverTelemetry(lib *nvml.Lib, c Candidate, sysfsRoot string) thermal.Telemetry {
	if c.BusAddress == "" {
		return nil
	}
	if lib != nil && c.Adapter.VendorID == 0x10de {
		if d, err := lib.DeviceByBusID(c.BusAddress); err == nil {
			return nvmlTelemetry{d}
		}
	}
	if c.PCI != nil {
		if s, err := pci.HWMon(sysfsRoot, c.PCI.BDF); err == nil {
			return hwmonTelemetry{s}
		}
	}
	return nil
}

// Reasons for absent parts that more than one place states.
const (
	reasonNoAmbient = "no inlet temperature sensor read and no --ambient-c given"
	reasonNoSoak    = "no soak: --soak 0"
)

// absentReason says why field is absent from v after c's run of p, if known.
func absentReason(field string, c Candidate, p DevicePlan, v *schema.CapabilityVector) (string, bool) {
	telemetry := "none"
	if v.Thermal != nil {
		telemetry = v.Thermal.Telemetry
	}
	switch {
	case field == "precisions" && len(v.Skipped) > 0:
		return "no precision probe could run on this device (see skipped)", true
	case rawVulkanOnly(field) && c.Vulkan == nil:
		return "known only through raw Vulkan, whose device was not matched to this adapter: " + c.vulkanWhy, true
	case field == "memory.physical_bytes":
		return "the Vulkan driver reports no device-local heap", true
	case field == "thermal" && p.soak == 0:
		return reasonNoSoak, true
	case field == "thermal.sustained_power_w" && telemetry == "none":
		return "no power telemetry for this device (neither NVML nor a hwmon power sensor)", true
	case field == "thermal.sustained_power_w":
		return telemetry + " gave no power reading during the soak", true
	case field == "thermal.peak_temperature_c" && telemetry == "none":
		return "no temperature telemetry for this device (neither NVML nor a hwmon sensor)", true
	case field == "thermal.peak_temperature_c":
		return telemetry + " gave no temperature reading during the soak", true
	case field == "environment.ambient_c" && v.Environment.AmbientC == nil:
		return reasonNoAmbient, true
	}
	return "", false
}

// rawVulkanOnly says whether field comes through raw Vulkan alone.
func rawVulkanOnly(field string) bool {
	switch field {
	case "memory.physical_bytes", "identity.bus_address", "launch_overhead", "interconnect",
		"interconnect.host_to_device", "interconnect.device_to_host":
		return true
	}
	return false
}

// notYetMeasured lists an Omission for every optional part left absent.
func notYetMeasured(c Candidate, p DevicePlan, v *schema.CapabilityVector) ([]schema.Omission, error) {
	listed := map[string]bool{}
	for _, om := range v.NotMeasured {
		listed[om.Field] = true
	}
	var out []schema.Omission
	for _, f := range schema.AbsentFields(v) {
		if listed[f] {
			continue
		}
		reason, ok := absentReason(f, c, p, v)
		if !ok {
			return nil, fmt.Errorf("%s is absent and nothing in this run says why", f)
		}
		out = append(out, schema.Omission{Field: f, Reason: reason})
	}
	return out, nil
}

func boxPayload(devs, all []Candidate, o Options, start time.Time) (schema.BoxPayload, error) {
	h, err := host.Read(o.SysfsRoot)
	if err != nil {
		return schema.BoxPayload{}, err
	}
	b := schema.BoxPayload{
		ReportVersion:     schema.ReportVersion,
		ProbedAt:          start.Format(time.RFC3339),
		Host:              h,
		AmbientC:          o.AmbientC,
		ProbeSuiteVersion: o.Version,
	}
	for _, c := range all {
		b.PresentDevices = append(b.PresentDevices, c.Addr)
	}
	for _, c := range devs {
		b.DriverVersions = append(b.DriverVersions, schema.DriverBinding{BusAddress: c.Addr, DriverVersion: driverVersion(c)})
	}
	if o.AmbientC == nil {
		b.NotMeasured = append(b.NotMeasured, schema.Omission{Field: "ambient_c", Reason: reasonNoAmbient})
	}
	return b, nil
}

// Sign signs the box and the cards linked to it; nothing unless all validate.
func (r *Run) Sign(s schema.Signer) ([]File, error) {
	boxFile, hash, err := schema.SignBox(r.Box, s)
	if err != nil {
		return nil, fmt.Errorf("box report: %w", err)
	}
	files := []File{{Name: "box-" + hash[:12] + ".appraisal.json", Data: boxFile}}
	names := r.cardNames()
	for i := range r.Cards {
		r.Cards[i].BoxReport = hash
		data, err := schema.SignCard(r.Cards[i], s)
		if err != nil {
			return nil, fmt.Errorf("card %s: %w", r.Cards[i].Capability.Identity.Name, err)
		}
		files = append(files, File{Name: names[i] + ".appraisal.json", Data: data})
	}
	return files, nil
}

// cardNames names each card's file without extension, unique.
func (r *Run) cardNames() []string {
	names := make([]string, len(r.Cards))
	count := map[string]int{}
	for i, c := range r.Cards {
		names[i] = strings.TrimSuffix(CardFileName(c, r.Box.DriverVersions[i].BusAddress), ".appraisal.json")
		count[names[i]]++
	}
	for i, n := range names {
		if count[n] > 1 {
			names[i] = n + "-" + strings.ReplaceAll(r.Box.DriverVersions[i].BusAddress, ":", "-")
		}
	}
	return names
}

// CardFileName is "card-<vbios-hash-or-address>.appraisal.json", colons as dashes.
func CardFileName(c schema.CardPayload, addr string) string {
	id := c.Capability.Identity
	key := addr
	switch {
	case id.VBIOSHash != "":
		key = id.VBIOSHash[:16]
	case id.BusAddress != "":
		key = id.BusAddress
	}
	return "card-" + strings.ReplaceAll(key, ":", "-") + ".appraisal.json"
}

// Drafts returns the run's payloads as unsigned "*.draft.json" files.
func (r *Run) Drafts(reason string) ([]File, error) {
	hash, err := schema.Hash(r.Box)
	if err != nil {
		return nil, err
	}
	encode := func(p any) ([]byte, error) {
		b, err := json.MarshalIndent(struct {
			Draft   string `json:"unsigned_draft"`
			Payload any    `json:"payload"`
		}{reason, p}, "", "  ")
		return append(b, '\n'), err
	}
	box, err := encode(r.Box)
	if err != nil {
		return nil, err
	}
	files := []File{{Name: "box-" + hash[:12] + ".draft.json", Data: box}}
	names := r.cardNames()
	for i := range r.Cards {
		r.Cards[i].BoxReport = hash
		card, err := encode(r.Cards[i])
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: names[i] + ".draft.json", Data: card})
	}
	return files, nil
}
