package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

func TestSignReadRoundTrip(t *testing.T) {
	card, box, err := signedPair()
	if err != nil {
		t.Fatal(err)
	}
	bp, bv, err := schema.ReadBox(box)
	if err != nil {
		t.Fatalf("ReadBox: %v", err)
	}
	cp, cv, err := schema.ReadCard(card)
	if err != nil {
		t.Fatalf("ReadCard: %v", err)
	}
	if cp.BoxReport != bv.Hash {
		t.Fatalf("card names box %s, box hashes to %s", cp.BoxReport, bv.Hash)
	}
	if want, _ := schema.Hash(bp); want != bv.Hash {
		t.Fatalf("Hash(payload) = %s, Verified.Hash = %s", want, bv.Hash)
	}
	if !bytes.Equal(cv.PublicKey, newTestSigner("example").Public()) {
		t.Fatal("verified key is not the signer's")
	}
}

// TestReformattedStillVerifies re-indents the file and reverses the order
// of every object's members: the canonical payload, and so the signature,
// do not change.
func TestReformattedStillVerifies(t *testing.T) {
	card, _, err := signedPair()
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(card, &v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	writeReversed(&b, v)
	if bytes.Equal(b.Bytes(), card) {
		t.Fatal("reformatting changed nothing")
	}
	if _, _, err := schema.ReadCard(b.Bytes()); err != nil {
		t.Fatalf("reordered, re-indented card: %v", err)
	}
	compact := new(bytes.Buffer)
	if err := json.Compact(compact, card); err != nil {
		t.Fatal(err)
	}
	if _, _, err := schema.ReadCard(compact.Bytes()); err != nil {
		t.Fatalf("compacted card: %v", err)
	}
}

// writeReversed writes v as JSON with object members in reverse key order.
func writeReversed(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		b.WriteString("{\n")
		for i := len(keys) - 1; i >= 0; i-- {
			kb, _ := json.Marshal(keys[i])
			b.Write(kb)
			b.WriteString(" :  ")
			writeReversed(b, x[keys[i]])
			if i > 0 {
				b.WriteString(",\n")
			}
		}
		b.WriteString("\n}")
	case []any:
		b.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(" , ")
			}
			writeReversed(b, e)
		}
		b.WriteString(" ]")
	default:
		vb, _ := json.Marshal(x)
		b.Write(vb)
	}
}

func TestTamperedCardFails(t *testing.T) {
	card, _, err := signedPair()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to string }{
		{"bandwidth figure", `"median": 810000000000`, `"median": 910000000000`},
		{"identity", `"device_id": "2c05"`, `"device_id": "2c04"`},
		{"box link", `"box_report": "`, `"box_report": "0`},
		{"signature", `"sig": "`, `"sig": "A`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !bytes.Contains(card, []byte(tc.from)) {
				t.Fatalf("fixture lacks %s", tc.from)
			}
			bad := bytes.Replace(card, []byte(tc.from), []byte(tc.to), 1)
			if _, _, err := schema.ReadCard(bad); err == nil {
				t.Fatal("tampered card read without error")
			}
		})
	}
}

func TestStrictReading(t *testing.T) {
	card, _, err := signedPair()
	if err != nil {
		t.Fatal(err)
	}
	s := string(card)
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"duplicate key", strings.Replace(s, `"report_version": "1",`, `"report_version": "1", "report_version": "1",`, 1), "duplicate"},
		{"invalid UTF-8", strings.Replace(s, "NVIDIA GeForce", "NVIDIA\xff", 1), "UTF-8"},
		{"lone surrogate", strings.Replace(s, `"NVIDIA`, `"\ud800NVIDIA`, 1), "surrogate"},
		{"trailing data", s + "{}", "trailing"},
		{"non-finite number", strings.Replace(s, `"median": 810000000000`, `"median": 1e400`, 1), "out of range"},
		{"unknown field", strings.Replace(s, `"report_version": "1",`, `"report_version": "1", "rating": 5,`, 1), "unknown"},
		{"case-folded field", strings.Replace(s, `"probed_at"`, `"Probed_At"`, 1), ""},
		{"explicit null", strings.Replace(s, `"report_version": "1",`, `"report_version": "1", "roofline": null,`, 1), ""},
		{"not JSON", "card", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.doc == s {
				t.Fatal("fixture edit changed nothing")
			}
			_, _, err := schema.ReadCard([]byte(tc.doc))
			if err == nil {
				t.Fatal("read without error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestValidateOnWrite(t *testing.T) {
	s := newTestSigner("example")
	p := exampleCard(strings.Repeat("ab", 32))
	p.Capability.Memory.Bandwidth[0].Check.Passed = false
	if _, err := schema.SignCard(p, s); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("failed check signed: %v", err)
	}
	p = exampleCard(strings.Repeat("AB", 32))
	if _, err := schema.SignCard(p, s); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("uppercase box hash signed: %v", err)
	}
	p = exampleCard(strings.Repeat("ab", 32))
	p.ProbedAt = "2026-06-20T20:23:11+02:00"
	if _, err := schema.SignCard(p, s); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("non-UTC probed_at signed: %v", err)
	}
}

func TestNotMeasuredRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*schema.CardPayload)
		want string
	}{
		{"absent without reason", func(p *schema.CardPayload) { p.Capability.NotMeasured = p.Capability.NotMeasured[1:] }, `"precisions" is absent`},
		{"present and listed", func(p *schema.CardPayload) {
			p.Capability.NotMeasured = append(p.Capability.NotMeasured, schema.Omission{Field: "launch_overhead", Reason: "x"})
		}, "also listed"},
		{"unknown field", func(p *schema.CardPayload) {
			p.Capability.NotMeasured = append(p.Capability.NotMeasured, schema.Omission{Field: "price", Reason: "x"})
		}, "not an optional field"},
		{"listed twice", func(p *schema.CardPayload) {
			p.Capability.NotMeasured = append(p.Capability.NotMeasured, p.Capability.NotMeasured[0])
		}, "listed twice"},
		{"min above median", func(p *schema.CardPayload) { p.Capability.Memory.Bandwidth[1].BytesPerS.Min = 1e15 }, "min"},
		{"zero figure", func(p *schema.CardPayload) { p.Capability.LaunchOverhead.EmptyDispatchS = schema.Stat{} }, "samples"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := exampleCard(strings.Repeat("ab", 32))
			tc.edit(&p)
			err := schema.Validate(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	if err := schema.Validate(exampleCard(strings.Repeat("ab", 32))); err != nil {
		t.Fatalf("example card: %v", err)
	}
}

func TestAbsentFields(t *testing.T) {
	p := exampleCard(strings.Repeat("ab", 32))
	got := strings.Join(schema.AbsentFields(&p.Capability), ",")
	want := "precisions,interconnect,thermal,roofline,cross_checks,environment.ambient_c,identity.vbios_hash,identity.serial,identity.uuid,memory.usable_bytes,memory.integrity"
	if got != want {
		t.Fatalf("AbsentFields = %s, want %s", got, want)
	}
}

func TestCrossCheckOutsideToleranceRefused(t *testing.T) {
	p := exampleCard(strings.Repeat("ab", 32))
	var kept []schema.Omission
	for _, o := range p.Capability.NotMeasured {
		if o.Field != "cross_checks" {
			kept = append(kept, o)
		}
	}
	p.Capability.NotMeasured = kept
	cc := schema.CrossCheck{Tool: "babelstream", ToolVersion: "5.0", ToolFigure: "Copy (double)", Figure: "memory.bandwidth.copy",
		Ours: 1.04e12, Theirs: 1e12, RelativeDelta: 0.04, Tolerance: 0.05}
	p.Capability.CrossChecks = []schema.CrossCheck{cc}
	if err := schema.Validate(p); err != nil {
		t.Fatalf("a cross-check within tolerance: %v", err)
	}
	cc.Ours, cc.RelativeDelta = 1.06e12, 0.06
	p.Capability.CrossChecks = []schema.CrossCheck{cc}
	if _, err := schema.SignCard(p, newTestSigner("x")); err == nil || !strings.Contains(err.Error(), "disagrees with babelstream") {
		t.Fatalf("a disagreeing cross-check was signed: %v", err)
	}
}

func TestBoxHostLinksRule(t *testing.T) {
	tr := func(rate float64) schema.Transfer {
		return schema.Transfer{BytesPerS: stat(rate), TransferBytes: 256 << 20, Path: "mapped-staging",
			Probe: "webgpu-hostlink", Timing: schema.TimingQueueWallClock, Check: check()}
	}
	links := &schema.HostLinksAtOnce{
		Devices: []schema.DeviceHostLink{
			{BusAddress: "0000:01:00.0", HostToDevice: tr(25e9), DeviceToHost: tr(26e9)},
			{BusAddress: "0000:02:00.0", HostToDevice: tr(24e9), DeviceToHost: tr(25e9)},
		},
		HostToDeviceBytesPerS: 49e9, DeviceToHostBytesPerS: 51e9,
	}
	two := func() schema.BoxPayload {
		b := exampleBox()
		b.PresentDevices = append(b.PresentDevices, "0000:02:00.0")
		b.DriverVersions = append(b.DriverVersions, schema.DriverBinding{BusAddress: "0000:02:00.0", DriverVersion: "580.159.04"})
		return b
	}
	for _, tc := range []struct {
		name string
		box  func() schema.BoxPayload
		want string // "" for valid
	}{
		{"one device without", exampleBox, ""},
		{"one device with", func() schema.BoxPayload { b := exampleBox(); b.HostLinks = links; return b }, "host_links in a run of one device"},
		{"two devices without a reason", two, `"host_links" is absent`},
		{"two devices with", func() schema.BoxPayload { b := two(); b.HostLinks = links; return b }, ""},
		{"two devices, explained", func() schema.BoxPayload {
			b := two()
			b.NotMeasured = append(b.NotMeasured, schema.Omission{Field: "host_links", Reason: "interrupted"})
			return b
		}, ""},
		{"one device listed", func() schema.BoxPayload {
			b := two()
			b.HostLinks = &schema.HostLinksAtOnce{Devices: links.Devices[:1], HostToDeviceBytesPerS: 1, DeviceToHostBytesPerS: 1}
			return b
		}, "min"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := schema.Validate(tc.box())
			if tc.want == "" && err != nil {
				t.Fatalf("Validate = %v, want valid", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}
