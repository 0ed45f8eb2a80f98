package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/appraisal"
)

// devicesCmd lists every adapter with whether an appraisal includes it.
type devicesCmd struct {
	Software bool `help:"Include software (CPU) adapters, as appraise --software does."`
	JSON     bool `name:"json" help:"Print JSON instead of a table."`
}

func (c *devicesCmd) Run(e *env) error {
	cands, err := listCandidates(c.Software)
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(cands)
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tADDRESS\tNAME\tTYPE\tVENDOR:DEVICE\tINCLUDED\tREASON")
	for _, c := range cands {
		a := c.Adapter
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%04x:%04x\t%s\t%s\n", a.Index, c.Addr, a.DisplayName(), a.Type, a.VendorID, a.DeviceID, yesNo(c.Included), c.Reason)
	}
	return tw.Flush()
}

// listCandidates enumerates the adapters and classifies them.
func listCandidates(software bool) ([]appraisal.Candidate, error) {
	inst, err := gpu.NewInstance()
	if err != nil {
		return nil, err
	}
	defer inst.Release()
	return appraisal.Discover(inst, software)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
