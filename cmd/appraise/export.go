package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/everycycle/appraise/internal/export"
	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
	"github.com/everycycle/appraise/verify"
)

// exportCmd writes verified cards in the formats fleet tools read.
type exportCmd struct {
	NFD        exportNFDCmd        `cmd:"" name:"nfd" help:"Write a Node Feature Discovery feature file: measured capability as node labels."`
	Prometheus exportPrometheusCmd `cmd:"" help:"Write a node_exporter textfile (*.prom) of the cards' figures."`
	InToto     exportInTotoCmd     `cmd:"" name:"intoto" help:"Write a card as an in-toto attestation in a Sigstore bundle, signed with the tenant's key, for cosign."`
}

// pinnedCards are the cards an export reads and the key they must verify
// against; nothing is exported unless every report verifies.
type pinnedCards struct {
	Trust     string   `required:"" placeholder:"PUBKEY|FILE" help:"The tenant key the cards must verify against: a base64 public key, or a file from 'appraise keys export-public'."`
	Rotations []string `placeholder:"FILE|DIR" help:"Rotation statements that lead from an older key to the pinned one."`
}

// load verifies the reports at paths and returns their cards, each reread
// and checked to be the very report that verified.
func (p pinnedCards) load(e *env, g *globals, paths []string) ([]export.Card, error) {
	tf := trustFlags{Trust: p.Trust, Rotations: p.Rotations}
	pol, err := tf.policy()
	if err != nil {
		return nil, err
	}
	verdicts, err := verify.Files(paths, verify.Options{Policy: pol})
	if err != nil {
		return nil, withCode(exitUsage, err, "")
	}
	var failed []string
	for _, v := range verdicts {
		if !v.OK || (v.Trust != verify.TrustPinned && v.Trust != verify.TrustRotated) {
			failed = append(failed, fmt.Sprintf("%s: %s", v.File, cmp.Or(v.Error, "signed by a key the pinned one does not vouch for")))
		}
	}
	if len(failed) > 0 {
		return nil, withCode(exitVerify, fmt.Errorf("%w, nothing exported:\n  %s", errVerify, strings.Join(failed, "\n  ")),
			cmp.Or(tf.rotationsHint(e, g, pol, verdicts), "'appraise verify --trust KEY' on the same files says more"))
	}
	var cards []export.Card
	for _, v := range verdicts {
		if v.Kind != verify.KindCard {
			continue
		}
		c, err := reread(v)
		if err != nil {
			return nil, err
		}
		cards = append(cards, c)
	}
	if len(cards) == 0 {
		return nil, withCode(exitUsage, errors.New("no card reports among the files given"), cardHint)
	}
	return cards, nil
}

// reread reads a verified card's file again and checks it is that report.
func reread(v verify.Verdict) (export.Card, error) {
	data, err := verify.ReadFile(v.File, verify.MaxFileBytes)
	if err != nil {
		return export.Card{}, err
	}
	p, got, err := schema.ReadCard(data)
	if err != nil || got.Hash != v.Hash || keys.Fingerprint(got.PublicKey) != v.Fingerprint {
		return export.Card{}, withCode(exitVerify, fmt.Errorf("%s changed while it was read", v.File), "")
	}
	return export.Card{Path: v.File, File: data, Payload: p, Tenant: got.Signature.TenantIdentity, KeyFingerprint: keys.Fingerprint(got.PublicKey)}, nil
}

// devices picks each device's newest card (software ones need --software).
func devices(cards []export.Card, software bool) ([]export.Card, error) {
	d, err := export.Devices(cards, software)
	if errors.Is(err, export.ErrSoftwareCard) {
		return nil, withCode(exitUsage, err, "pass --software to export a software adapter's figures (the host's CPU, no GPU)")
	}
	return d, err
}

// writeOut writes data to out atomically, or to stdout for "-".
func writeOut(e *env, out string, data []byte) error {
	if out == "-" {
		_, err := e.stdout.Write(data)
		return err
	}
	if err := export.WriteFile(out, data); err != nil {
		return err
	}
	_, err := fmt.Fprintln(e.stdout, out)
	return err
}

// checkOut refuses (exit 2) an --out whose directory is missing; tool
// names the fleet tool it is for ("" for none).
func checkOut(out, tool string) error {
	if out == "-" {
		return nil
	}
	dir := filepath.Dir(out)
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		err = fmt.Errorf("--out %s: %s is not a directory", out, dir)
	case errors.Is(err, fs.ErrNotExist) && tool != "":
		err = fmt.Errorf("--out %s: the directory %s does not exist: is %s installed here?", out, dir, tool)
	case errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("--out %s: the directory %s does not exist", out, dir)
	default:
		err = fmt.Errorf("--out %s: %w", out, err)
	}
	return withCode(exitUsage, err, "pass --out FILE to write the file elsewhere, or --out - for stdout")
}

type exportNFDCmd struct {
	Paths []string `arg:"" placeholder:"CARD|DIR" help:"Card reports, or directories of them (the newest card of each device counts)."`
	pinnedCards
	Out      string        `default:"/etc/kubernetes/node-feature-discovery/features.d/appraise" placeholder:"FILE" help:"Feature file to write, atomically ('-': stdout)."`
	MaxAge   time.Duration `default:"720h" help:"How long a card's figures stand: the labels expire at the oldest card's time plus this, and an older card is refused."`
	Software bool          `help:"Also export software adapters' cards."`
}

func (c *exportNFDCmd) Run(e *env, g *globals) error {
	if err := checkOut(c.Out, "Node Feature Discovery"); err != nil {
		return err
	}
	cards, err := c.load(e, g, c.Paths)
	if err != nil {
		return err
	}
	if cards, err = devices(cards, c.Software); err != nil {
		return err
	}
	data, err := export.NFD(cards, export.NFDOptions{Now: time.Now(), MaxAge: c.MaxAge})
	if errors.Is(err, export.ErrStale) {
		return withCode(exitError, err, "appraise the device again, or raise --max-age")
	}
	if err != nil {
		return err
	}
	return writeOut(e, c.Out, data)
}

type exportPrometheusCmd struct {
	Paths []string `arg:"" placeholder:"CARD|DIR" help:"Card reports, or directories of them (the newest card of each device counts)."`
	pinnedCards
	Out      string `default:"/var/lib/prometheus/node-exporter/appraise.prom" placeholder:"FILE.prom" help:"Textfile to write, atomically, in node_exporter's --collector.textfile.directory ('-': stdout)."`
	Software bool   `help:"Also export software adapters' cards."`
}

func (c *exportPrometheusCmd) Run(e *env, g *globals) error {
	if c.Out != "-" && !strings.HasSuffix(c.Out, ".prom") {
		return withCode(exitUsage, fmt.Errorf("--out %s: node_exporter reads only *.prom files", c.Out), "")
	}
	if err := checkOut(c.Out, "prometheus-node-exporter"); err != nil {
		return err
	}
	cards, err := c.load(e, g, c.Paths)
	if err != nil {
		return err
	}
	if cards, err = devices(cards, c.Software); err != nil {
		return err
	}
	data, err := export.Prometheus(cards)
	if err != nil {
		return err
	}
	return writeOut(e, c.Out, data)
}

type exportInTotoCmd struct {
	Card string `arg:"" type:"existingfile" placeholder:"CARD" help:"The card report to attest (its box is found beside it)."`
	pinnedCards
	Out string `placeholder:"FILE" help:"Bundle to write, atomically ('-': stdout; default: beside the card, named like it with .sigstore.json)."`
}

func (c *exportInTotoCmd) Run(e *env, g *globals) error {
	if c.Out != "" {
		if err := checkOut(c.Out, ""); err != nil {
			return err
		}
	}
	cards, err := c.load(e, g, []string{c.Card})
	if err != nil {
		return err
	}
	s, err := unlockSigner(e, g)
	if err != nil {
		return err
	}
	bundle, err := export.InToto(cards[0], s)
	if err != nil {
		return err
	}
	out := c.Out
	if out == "" {
		out = strings.TrimSuffix(strings.TrimSuffix(c.Card, ".json"), ".appraisal") + ".sigstore.json"
	}
	return writeOut(e, out, bundle)
}
