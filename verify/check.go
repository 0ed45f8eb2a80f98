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
	KindCard    Kind = "card"    // one device
	KindBox     Kind = "box"     // one run on one host
	KindUnknown Kind = "unknown" // recognisably neither
)

// Class is the reason class of a verdict: ClassOK, or the first rule the
// file broke. The rules apply in the order of the constants; the last
// three hold in a run directory, whose files were found by listing it.
type Class string

const (
	ClassOK              Class = "ok"
	ClassUnreadable      Class = "unreadable"       // not a regular file of at most MaxFileBytes
	ClassMalformed       Class = "malformed"        // not a valid card or box report
	ClassBadSignature    Class = "bad-signature"    // the signature over its RFC 8785 payload fails
	ClassUntrusted       Class = "untrusted"        // not the pinned key or tenant, nor rotated to it
	ClassNotVouched      Class = "not-vouched"      // unlisted by the statement that retired its key
	ClassBoxMissing      Class = "box-missing"      // a card's box is not among the files
	ClassBoxKey          Class = "box-key"          // a card's box was signed by another key
	ClassIncompleteRun   Class = "incomplete-run"   // a box's device has no card
	ClassDuplicateDevice Class = "duplicate-device" // a box's device has two cards
	ClassUnlistedDevice  Class = "unlisted-device"  // a card's device is not in its box
)

// Verdict is the decision on one report file.
type Verdict struct {
	File        string `json:"file"`                      // Input.File
	Kind        Kind   `json:"kind"`                      // as far as could be told
	OK          bool   `json:"ok"`                        // Class == ClassOK
	Class       Class  `json:"class"`                     // the reason class
	Tenant      string `json:"tenant,omitempty"`          // tenant_identity, once the signature verified
	Fingerprint string `json:"key_fingerprint,omitempty"` // the signing key's, once verified
	Trust       Trust  `json:"trust,omitempty"`           // once judged
	Hash        string `json:"hash,omitempty"`            // hex SHA-256 of the canonical payload
	Box         string `json:"box,omitempty"`             // the box a card links, once found
	Error       string `json:"error,omitempty"`           // why the file failed
	// Disagreements are a card's disagreeing consistency checks, which a
	// software adapter's card may carry; they do not fail it, and a reader
	// should be warned of each.
	Disagreements []schema.ConsistencyCheck `json:"disagreements,omitempty"`
}

// Input is one report file for a Checker.
type Input struct {
	File     string // names the file in its verdict
	Dir      string // the directory that holds the file
	Data     []byte // ignored when Err is set
	Err      error  // why the file could not be read: ClassUnreadable
	WholeRun bool   // found by listing Dir, a run directory
	LinkOnly bool   // a box not given, only for a card to link; it gets no verdict
}

// entry is what a Checker keeps of one parsed file.
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
// Verdicts. It keeps a few hundred bytes per file, whatever its size. It
// is not safe for concurrent use.
type Checker struct {
	judge   judge
	entries []*entry
	boxes   map[string]*entry // box hash → the first box with it
}

// NewChecker returns a Checker that judges keys by p.
func NewChecker(p Policy) *Checker {
	return &Checker{judge: p.prepare(), boxes: map[string]*entry{}}
}

// Add verifies and judges one file; the cross-file rules wait for Verdicts.
func (c *Checker) Add(in Input) {
	c.add(parse(in, c.judge))
}

func (c *Checker) add(e *entry) {
	c.entries = append(c.entries, e)
	if e.v.Kind == KindBox && e.key != nil {
		if _, seen := c.boxes[e.v.Hash]; !seen {
			c.boxes[e.v.Hash] = e
		}
	}
}

// parse verifies and judges one file on its own; it is safe for concurrent use.
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

// needsBox returns the directories of cards given alone whose box is not
// among the files, where a caller should look for LinkOnly boxes.
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

func readClass(err error) Class {
	if errors.Is(err, schema.ErrBadSignature) {
		return ClassBadSignature
	}
	return ClassMalformed
}

// deviceOf returns the bus address, or the prefix of a box's name for a
// device without one.
func deviceOf(id schema.DeviceIdentity) string {
	switch {
	case id.BusAddress != "":
		return id.BusAddress
	case id.Software:
		return "software-"
	}
	return "adapter-"
}

// sniff tells a box (a payload with "host" and no "capability") from a
// card, reading tokens only; the strict reader then decides.
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

// wholeRuns applies the run-directory rule to every listed box.
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

// checkRun gives each device of box exactly one of cards. Devices without
// a bus address are matched by kind and count; equal cards are a copy.
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

// group is the devices of a box one card identity stands for: one bus
// address, all software-N or all adapter-N.
type group struct {
	key   string
	names []string
}

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
