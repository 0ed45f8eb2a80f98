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

// ErrSoftwareCard is returned for a software adapter's card when software
// cards were not asked for.
var ErrSoftwareCard = errors.New("a software adapter's card")

// Card is one card report that the caller verified against a pinned key.
type Card struct {
	Path           string // the file's path; its base name names the in-toto subject
	File           []byte // the file's bytes exactly as read
	Payload        *schema.CardPayload
	Tenant         string // the tenant that signed the card
	KeyFingerprint string // the fingerprint of the key that signed it
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

// deviceKey names the device a card measured: its bus address, else its
// UUID, else its ids and name.
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

// Devices returns the newest card of each device, ordered by bus address.
// A software adapter's card is ErrSoftwareCard unless software is true; no
// cards is an error.
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
