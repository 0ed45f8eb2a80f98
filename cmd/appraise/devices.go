package main

import (
	"fmt"
	"strconv"
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
	cands, warnings, err := listCandidates(c.Software, e.getenv("APPRAISE_SYSFS_ROOT"))
	if err != nil {
		return noDevice(err)
	}
	warn(e, warnings)
	if c.JSON {
		return e.printJSON(devicesJSON(cands))
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tADDRESS\tNAME\tTYPE\tVENDOR:DEVICE\tINCLUDED\tREASON")
	for _, c := range cands {
		a := c.Adapter
		idx, name, typ, ids := strconv.Itoa(a.Index), a.DisplayName(), a.Type, fmt.Sprintf("%04x:%04x", a.VendorID, a.DeviceID)
		if a.Index < 0 && c.PCI != nil {
			idx, name, typ = "-", "(no adapter)", fmt.Sprintf("pci class %06x", c.PCI.Class)
			ids = fmt.Sprintf("%04x:%04x", c.PCI.VendorID, c.PCI.DeviceID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", idx, c.Addr, name, typ, ids, yesNo(c.Included), c.Reason)
	}
	return tw.Flush()
}

// listCandidates enumerates the adapters and classifies them.
func listCandidates(software bool, sysfsRoot string) ([]appraisal.Candidate, []error, error) {
	inst, err := gpu.NewInstance()
	if err != nil {
		return nil, nil, err
	}
	defer inst.Release()
	return appraisal.Discover(inst, software, sysfsRoot)
}

// noDevice gives a failure to find any adapter exit 4 and a hint.
func noDevice(err error) error {
	return withCode(exitNoDevice, err, "is a Vulkan driver installed? on a machine without a GPU: apt-get install mesa-vulkan-drivers and pass --software")
}

// warn prints each warning on stderr in the house voice.
func warn(e *env, warnings []error) {
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "appraise: warning: %v\n", w)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
