package export

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/everycycle/appraise/schema"
)

// ErrSoftwareCard is returned for a software adapter's card (lavapipe,
// llvmpipe, SwiftShader: the host's CPU) when software cards were not
// asked for: its figures are no GPU's.
var ErrSoftwareCard = errors.New("a software adapter's card")

// Card is one card report that verified against a pinned key. The
// caller verifies; the functions of this package trust what they get.
type Card struct {
	// Path is the card file's path, for messages; its base name is the
	// in-toto subject's name.
	Path string
	// File is the card file's bytes exactly as read: the in-toto
	// subject's digest is their SHA-256.
	File []byte
	// Payload is the card's verified payload.
	Payload *schema.CardPayload
	// Tenant is the tenant that signed the card.
	Tenant string
	// KeyFingerprint is the fingerprint of the key that signed it.
	KeyFingerprint string
}

// SHA256 is the lowercase hex SHA-256 of the card file's bytes.
func (c Card) SHA256() string {
	sum := sha256.Sum256(c.File)
	return hex.EncodeToString(sum[:])
}

// ProbedAt is when the card's appraisal started.
func (c Card) ProbedAt() (time.Time, error) {
	t, err := time.Parse(time.RFC3339, c.Payload.ProbedAt)
	if err != nil {
		return time.Time{}, fmt.Errorf("export: %s: probed_at: %w", c.Path, err)
	}
	return t, nil
}

// deviceKey names the physical device a card measured: its bus address,
// else its UUID, else (a software adapter) its ids and driver-reported
// name. Two cards with one key are two appraisals of one device.
func deviceKey(c Card) string {
	id := c.Payload.Capability.Identity
	switch {
	case id.BusAddress != "":
		return id.BusAddress
	case id.UUID != "":
		return "uuid " + id.UUID
	}
	return id.VendorID + ":" + id.DeviceID + " " + id.Name
}

// Devices picks the newest card of each device among cards (a directory
// may hold several runs) and returns them ordered by bus address, so the
// n-th device keeps its place from one export to the next. A software
// adapter's card is ErrSoftwareCard unless software is true. No cards is
// an error: an export says what was measured, and nothing was.
func Devices(cards []Card, software bool) ([]Card, error) {
	newest := map[string]Card{}
	when := map[string]time.Time{}
	for _, c := range cards {
		if c.Payload.Capability.Identity.Software && !software {
			return nil, fmt.Errorf("export: %s: %w", c.Path, ErrSoftwareCard)
		}
		at, err := c.ProbedAt()
		if err != nil {
			return nil, err
		}
		k := deviceKey(c)
		if prev, ok := when[k]; !ok || at.After(prev) {
			newest[k], when[k] = c, at
		}
	}
	if len(newest) == 0 {
		return nil, errors.New("export: no cards")
	}
	out := make([]Card, 0, len(newest))
	for _, c := range newest {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Card) int { return cmp.Compare(deviceKey(a), deviceKey(b)) })
	return out, nil
}
