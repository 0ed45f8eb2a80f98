package verify

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
)

// Kind is what a report file holds.
type Kind string

const (
	// KindCard is a card report: one device.
	KindCard Kind = "card"
	// KindBox is a box report: one run on one host.
	KindBox Kind = "box"
	// KindUnknown is a file that is not recognisably either.
	KindUnknown Kind = "unknown"
)

// Class is the reason class of a verdict: ClassOK, or the first rule the
// file broke (see the package documentation).
type Class string

// The reason classes, in the order the rules are applied.
const (
	ClassOK              Class = "ok"
	ClassUnreadable      Class = "unreadable"
	ClassMalformed       Class = "malformed"
	ClassBadSignature    Class = "bad-signature"
	ClassUntrusted       Class = "untrusted"
	ClassNotVouched      Class = "not-vouched"
	ClassBoxMissing      Class = "box-missing"
	ClassBoxKey          Class = "box-key"
	ClassIncompleteRun   Class = "incomplete-run"
	ClassDuplicateDevice Class = "duplicate-device"
	ClassUnlistedDevice  Class = "unlisted-device"
)

// Verdict is the decision on one report file.
type Verdict struct {
	// File names the file as it was given (Input.File).
	File string `json:"file"`
	// Kind is what the file holds, as far as could be told.
	Kind Kind `json:"kind"`
	// OK is Class == ClassOK.
	OK bool `json:"ok"`
	// Class is the reason class.
	Class Class `json:"class"`
	// Tenant is the signature's tenant_identity, once the signature
	// verified.
	Tenant string `json:"tenant,omitempty"`
	// Fingerprint is the signing key's fingerprint, once the signature
	// verified.
	Fingerprint string `json:"key_fingerprint,omitempty"`
	// Trust is how the key relates to the pinned key, once judged.
	Trust Trust `json:"trust,omitempty"`
	// Hash is the lowercase hex SHA-256 of the canonical payload, once
	// the signature verified (a box's hash is what its cards name).
	Hash string `json:"hash,omitempty"`
	// Box is the file of the box report a card links, once found.
	Box string `json:"box,omitempty"`
	// Error says in words why the file failed; empty when OK.
	Error string `json:"error,omitempty"`
	// Disagreements are a card's consistency checks that do not agree,
	// once its signature verified: a software adapter's card may be
	// signed with some (schema.ConsistencyCheck). They do not fail the
	// card; a reader should be warned of each.
	Disagreements []schema.ConsistencyCheck `json:"disagreements,omitempty"`
}

// Input is one report file for a Checker.
type Input struct {
	// File names the file in its verdict (the path as given).
	File string
	// Dir is the directory that holds the file: the run directory the
	// whole-run rule groups by.
	Dir string
	// Data is the file's content, ignored when Err is set.
	Data []byte
	// Err is why the file could not be read: its verdict is
	// ClassUnreadable.
	Err error
	// WholeRun is set for a file found by listing Dir, which thereby
	// claims to hold each of its boxes' whole runs.
	WholeRun bool
	// LinkOnly is set for a box found beside a card, not given: it may be
	// the box a card links, and gets no verdict of its own.
	LinkOnly bool
}

// entry is what a Checker keeps of one file once parsed: its verdict so
// far and what the cross-file rules need, not the report itself.
type entry struct {
	v        Verdict
	dir      string
	wholeRun bool
	linkOnly bool
	key      []byte // signing key, once the signature verified
	boxHash  string // a card's box_report
	device   string // a card's device: its bus address, or "software-"/"adapter-" for none
	devices  []string
}

// Checker applies the policy to a set of files: Add each, then take the
// Verdicts. It keeps a few hundred bytes per file, whatever the files'
// sizes (and a card's disagreeing consistency checks, which only a
// software adapter's card may carry). It is not safe for concurrent use.
type Checker struct {
	judge   judge
	entries []*entry
	boxes   map[string]*entry // box hash → the first box with it
}

// NewChecker returns a Checker that judges keys by p, its rotation
// statements verified once.
func NewChecker(p Policy) *Checker {
	return &Checker{judge: p.prepare(), boxes: map[string]*entry{}}
}

// Add reads, verifies and judges one file; the cross-file rules wait for
// Verdicts.
func (c *Checker) Add(in Input) {
	c.add(parse(in, c.judge))
}

// add takes in a parsed file.
func (c *Checker) add(e *entry) {
	c.entries = append(c.entries, e)
	if e.v.Kind == KindBox && e.key != nil {
		if _, seen := c.boxes[e.v.Hash]; !seen {
			c.boxes[e.v.Hash] = e
		}
	}
}

// parse reads, verifies and judges one file on its own. It is safe to
// call concurrently with one judge.
func parse(in Input, j judge) *entry {
	e := &entry{v: Verdict{File: in.File, Kind: KindUnknown}, dir: in.Dir, wholeRun: in.WholeRun, linkOnly: in.LinkOnly}
	if in.Err != nil {
		e.fail(ClassUnreadable, in.Err)
		return e
	}
	e.v.Kind = sniff(in.Data)
	var verified *schema.Verified
	var err error
	switch e.v.Kind {
	case KindBox:
		var box *schema.BoxPayload
		if box, verified, err = schema.ReadBox(in.Data); err == nil {
			for _, d := range box.DriverVersions {
				e.devices = append(e.devices, d.BusAddress)
			}
		}
	default:
		var card *schema.CardPayload
		if card, verified, err = schema.ReadCard(in.Data); err == nil {
			e.v.Kind, e.boxHash, e.device = KindCard, card.BoxReport, deviceOf(card.Capability.Identity)
			e.v.Disagreements = card.Capability.Disagreements()
		}
	}
	if err != nil {
		e.fail(readClass(err), err)
		return e
	}
	e.key = verified.PublicKey
	e.v.Tenant, e.v.Fingerprint, e.v.Hash = verified.Signature.TenantIdentity, keys.Fingerprint(verified.PublicKey), verified.Hash
	trust, class, err := j.judge(verified)
	e.v.Trust = trust
	if err != nil {
		e.fail(class, err)
	}
	return e
}

// Verdicts applies the cross-file rules and returns one verdict per file
// added, in order, except link-only boxes.
func (c *Checker) Verdicts() []Verdict {
	for _, e := range c.entries {
		if e.v.Kind == KindCard && e.v.Class == "" {
			c.link(e)
		}
	}
	c.wholeRuns()
	out := make([]Verdict, 0, len(c.entries))
	for _, e := range c.entries {
		if e.linkOnly {
			continue
		}
		if e.v.Class == "" {
			e.v.Class, e.v.OK = ClassOK, true
		}
		out = append(out, e.v)
	}
	return out
}

// needsBox reports whether some card given by itself (not found in a run
// directory) has no box among the files so far: the dirs whose boxes a
// caller with a filesystem should add as LinkOnly inputs.
func (c *Checker) needsBox() []string {
	var dirs []string
	seen := map[string]bool{}
	for _, e := range c.entries {
		if e.v.Kind == KindCard && e.key != nil && !e.wholeRun && c.boxes[e.boxHash] == nil && !seen[e.dir] {
			seen[e.dir] = true
			dirs = append(dirs, e.dir)
		}
	}
	return dirs
}

// link finds the card's box by hash and checks that one key signed both.
func (c *Checker) link(e *entry) {
	box := c.boxes[e.boxHash]
	if box == nil {
		e.fail(ClassBoxMissing, fmt.Errorf("box report %s… not found (it was altered, or is elsewhere: pass --box)", e.boxHash[:12]))
		return
	}
	if !bytes.Equal(box.key, e.key) {
		e.fail(ClassBoxKey, fmt.Errorf("box %s was signed by another key", box.v.File))
		return
	}
	e.v.Box = box.v.File
}

func (e *entry) fail(class Class, err error) {
	if e.v.Class != "" && e.v.Class != ClassOK {
		return // the first failure stands
	}
	e.v.Class, e.v.OK, e.v.Error = class, false, err.Error()
}

// readClass tells a bad signature from other reasons a report does not
// read.
func readClass(err error) Class {
	if errors.Is(err, schema.ErrBadSignature) {
		return ClassBadSignature
	}
	return ClassMalformed
}

// deviceOf is the name a box gives the card's device: its bus address, or
// for a device without one the prefix of the box's name for it.
func deviceOf(id schema.DeviceIdentity) string {
	switch {
	case id.BusAddress != "":
		return id.BusAddress
	case id.Software:
		return "software-"
	}
	return "adapter-"
}

// sniff tells a box from a card by its payload's members (a box has
// "host" and no "capability"), reading tokens only; the strict reader of
// that kind then decides. Anything that is not a JSON object with an
// object payload is judged as a card, the common case.
func sniff(data []byte) Kind {
	d := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return KindUnknown
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return KindUnknown
		}
		if name.String() != "payload" || d.PeekKind() != '{' {
			if d.SkipValue() != nil {
				return KindUnknown
			}
			continue
		}
		return payloadKind(d)
	}
	return KindCard
}

// payloadKind reads the payload object's member names.
func payloadKind(d *jsontext.Decoder) Kind {
	if _, err := d.ReadToken(); err != nil {
		return KindUnknown
	}
	host, capability := false, false
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return KindCard
		}
		host = host || name.String() == "host"
		capability = capability || name.String() == "capability"
		if d.SkipValue() != nil {
			return KindCard
		}
	}
	if host && !capability {
		return KindBox
	}
	return KindCard
}

// wholeRuns applies the run-directory rule to every box found by listing
// a directory.
func (c *Checker) wholeRuns() {
	cards := map[string][]*entry{} // dir + "\x00" + box hash → cards found in that dir linking it
	for _, e := range c.entries {
		if e.wholeRun && e.v.Kind == KindCard && e.key != nil {
			k := e.dir + "\x00" + e.boxHash
			cards[k] = append(cards[k], e)
		}
	}
	for _, b := range c.entries {
		if b.wholeRun && b.v.Kind == KindBox && b.key != nil {
			checkRun(b, cards[b.dir+"\x00"+b.v.Hash])
		}
	}
}

// checkRun matches a box's devices with the cards of its directory that
// link it: each device needs exactly one card whose identity is that
// device. Devices without a bus address (software-N, adapter-N: a
// software adapter, an adapter not tied to a PCI device) are matched by
// kind, by count; two cards that are the same report are one card copied.
func checkRun(box *entry, cards []*entry) {
	claims := map[string][]*entry{}
	for _, card := range cards {
		claims[card.device] = append(claims[card.device], card)
	}
	var missing, dups []string
	for _, g := range groups(box.devices) {
		got := claims[g.key]
		delete(claims, g.key)
		if len(got) > len(g.names) || hasCopies(got) {
			dups = append(dups, g.names...)
			for _, card := range got {
				card.fail(ClassDuplicateDevice, fmt.Errorf("another card in its directory also claims device %s of box %s", strings.Join(g.names, " or "), box.v.File))
			}
		} else if len(got) < len(g.names) {
			missing = append(missing, g.names[len(got):]...)
		}
	}
	for dev, got := range claims {
		for _, card := range got {
			card.fail(ClassUnlistedDevice, fmt.Errorf("its device %s is not among those box %s lists", strings.TrimSuffix(dev, "-"), box.v.File))
		}
	}
	switch {
	case len(dups) > 0:
		msg := "more than one card in its directory claims device " + strings.Join(dups, ", ")
		if len(missing) > 0 {
			msg += ", and none is " + strings.Join(missing, ", ")
		}
		box.fail(ClassDuplicateDevice, errors.New(msg))
	case len(missing) > 0:
		box.fail(ClassIncompleteRun, fmt.Errorf("box lists %d appraised devices, but %d cards in its directory link it (unmatched: %s)",
			len(box.devices), len(cards), strings.Join(missing, ", ")))
	}
}

// group is the devices of a box one kind of card identity stands for: one
// bus address, or all software-N, or all adapter-N.
type group struct {
	key   string
	names []string
}

// groups splits a box's device list by the identity a card would claim,
// in the box's order.
func groups(devices []string) []group {
	var out []group
	at := map[string]int{}
	for _, d := range devices {
		key := d
		if !strings.Contains(d, ":") {
			key = d[:strings.Index(d, "-")+1]
		}
		i, ok := at[key]
		if !ok {
			i, at[key] = len(out), len(out)
			out = append(out, group{key: key})
		}
		out[i].names = append(out[i].names, d)
	}
	return out
}

// hasCopies reports whether two of the cards are the same report.
func hasCopies(cards []*entry) bool {
	seen := map[string]bool{}
	for _, c := range cards {
		if seen[c.v.Hash] {
			return true
		}
		seen[c.v.Hash] = true
	}
	return false
}
