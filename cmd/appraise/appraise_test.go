package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/everycycle/appraise/internal/appraisal"
	"github.com/everycycle/appraise/internal/platform/occupancy"
	"github.com/everycycle/appraise/schema"
)

// TestSoakFlag: --soak 0 reaches the appraisal as a zero duration (no
// soak), no --soak as nil (the mode's default), and a duration as given.
// That the appraisal then skips the soak and says why is
// internal/appraisal's; the appraise_software script runs the soak.
func TestSoakFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want *time.Duration
	}{
		{[]string{"--software", "--soak", "0"}, new(time.Duration)},
		{[]string{"--software", "--soak=2s"}, ptr(2 * time.Second)},
		{[]string{"--software"}, nil},
	} {
		cl := parseCLI(t, c.args)
		got := cl.Appraise.Soak
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%v: soak %v, want %v", c.args, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// parseCLI parses args as the command line, failing t where the parser
// refuses them or would exit.
func parseCLI(t *testing.T, args []string) cli {
	t.Helper()
	var cl cli
	p, err := kong.New(&cl, kong.Exit(func(int) { t.Fatalf("%v: parser exited", args) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return cl
}

// TestAllowSharedFlag: --allow-shared reaches the command; it is off by
// default.
func TestAllowSharedFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{{[]string{"--allow-shared"}, true}, {nil, false}} {
		cl := parseCLI(t, c.args)
		if cl.Appraise.AllowShared != c.want {
			t.Errorf("%v: AllowShared %v, want %v", c.args, cl.Appraise.AllowShared, c.want)
		}
	}
}

// TestBusyExit: a device in use exits 10, the error naming the process
// and the hint offering --allow-shared, in the house voice.
func TestBusyExit(t *testing.T) {
	mem := uint64(40 << 30)
	busy := &occupancy.BusyError{Addr: "0000:00:06.0", Processes: []schema.SharedProcess{
		{PID: 4242, Name: "python3", UsedMemoryBytes: &mem, Source: schema.SharedNVML}}}
	var stderr bytes.Buffer
	code := report(&env{stderr: &stderr}, probeError(fmt.Errorf("appraise: %w", busy)))
	if code != exitBusy || exitBusy != 10 {
		t.Errorf("exit %d; want 10", code)
	}
	want := "appraise: error: appraise: 0000:00:06.0 is in use before probing by another process: pid 4242 python3 (40.0 GiB, nvml)\n" +
		"appraise: hint: nothing was signed; stop the other process, or pass --allow-shared to sign anyway with the card recording who else ran\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
	if got := exitCode(probeError(errors.Join(context.Canceled, busy))); got != exitBusy {
		t.Errorf("busy and cancelled: exit %d; want %d (the busy device is why)", got, exitBusy)
	}
}

// TestSharedWarnings: a card signed beside another process says so on
// stderr; one alone says nothing.
func TestSharedWarnings(t *testing.T) {
	run := &appraisal.Run{Box: schema.BoxPayload{DriverVersions: []schema.DriverBinding{{BusAddress: "0000:00:06.0"}, {BusAddress: "0000:00:07.0"}}},
		Cards: make([]schema.CardPayload, 2)}
	run.Cards[0].Capability.Environment.SharedUse = &schema.SharedUse{Checked: true, Methods: []string{schema.SharedNVML}, Allowed: true, OthersFound: true,
		Processes: []schema.SharedProcess{{PID: 4242, Name: "python3", Source: schema.SharedNVML}}}
	run.Cards[1].Capability.Environment.SharedUse = &schema.SharedUse{Checked: true, Methods: []string{schema.SharedNVML}, Allowed: true}
	ws := sharedWarnings(run)
	if len(ws) != 1 || ws[0].Error() != "0000:00:06.0 was shared with pid 4242 python3 (nvml); its card records it" {
		t.Errorf("warnings %v", ws)
	}
}

// TestSerialFlag: --serial reaches the appraisal's options; without it
// the devices run at once.
func TestSerialFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{{[]string{"--serial"}, true}, {nil, false}} {
		cl := parseCLI(t, c.args)
		if got := cl.Appraise.options(&env{getenv: func(string) string { return "" }}).Serial; got != c.want {
			t.Errorf("%v: Serial %v, want %v", c.args, got, c.want)
		}
	}
}

// TestDeviceFailedExit: a run in which some devices failed is written and
// exits 11; a run in which every device failed is refused by what failed
// (a probe: 5), and an interrupted one exits 130 whatever else failed.
func TestDeviceFailedExit(t *testing.T) {
	probe := fmt.Errorf("software-1 (llvmpipe): %w: webgpu-stream: injected", appraisal.ErrProbe)
	some := fmt.Errorf("%w: %w", appraisal.ErrDeviceFailed, probe)
	if err := deviceFailed(some); exitCode(err) != exitDeviceFail || exitDeviceFail != 11 {
		t.Errorf("some failed: exit %d; want 11", exitCode(err))
	}
	var stderr bytes.Buffer
	report(&env{stderr: &stderr}, deviceFailed(some))
	if !strings.Contains(stderr.String(), "appraise: error: a device failed; the other devices' cards were made: software-1 (llvmpipe): probe failed: webgpu-stream: injected\n") ||
		!strings.Contains(stderr.String(), "appraise: hint: the other devices' cards were signed and written") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	for _, c := range []struct {
		err  error
		want int
	}{
		{errors.Join(probe, probe), exitProbe},
		{errors.Join(context.Canceled, probe), exitInterrupted},
		{fmt.Errorf("x: %w", appraisal.ErrInconsistent), exitConsistency},
	} {
		if deviceFailed(c.err) != nil {
			t.Errorf("%v: taken for a partial run", c.err)
		}
		if got := exitCode(probeError(c.err)); got != c.want {
			t.Errorf("%v: exit %d; want %d", c.err, got, c.want)
		}
	}
}

// TestInterruptIsOneLine: an interrupted appraisal prints one line, not
// the error a probe returned as it stopped, and exits 130; so does an
// interrupt of another command.
func TestInterruptIsOneLine(t *testing.T) {
	stopped := fmt.Errorf("software-0 (llvmpipe): %w: dot4-uint8: coopmat: dot4-uint8: %w", appraisal.ErrProbe, context.Canceled)
	for _, c := range []struct {
		err  error
		want string
	}{
		{probeError(errors.Join(context.Canceled, stopped)), "appraise: interrupted: nothing was signed\n"},
		{interrupted(), "appraise: interrupted: nothing was signed\n"},
		{fmt.Errorf("check: %w", context.Canceled), "appraise: interrupted\n"},
	} {
		var stderr bytes.Buffer
		if code := report(&env{stderr: &stderr}, c.err); code != exitInterrupted || stderr.String() != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 130, %q", c.err, code, stderr.String(), c.want)
		}
	}
}
