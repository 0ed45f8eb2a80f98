// Command appraise measures what a physical GPU can actually do, writes it
// down as a validated capability vector and signs it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/appraisal"
	"github.com/everycycle/appraise/internal/xdg"
)

// version is the probe-suite version, set with -ldflags "-X main.version=…".
var version = "0.2.0-dev"

// cli is the whole command line. The default command is the appraisal.
type cli struct {
	globals

	Appraise appraiseCmd `cmd:"" default:"withargs" help:"Appraise the GPUs of this machine and sign the reports. The default command: 'appraise --out DIR --software' runs it; 'appraise appraise --help' lists its flags."`
	Plan     planCmd     `cmd:"" help:"Print what an appraisal with the same flags would do on each device, and its expected time, without measuring."`
	Verify   verifyCmd   `cmd:"" help:"Verify signed card and box reports."`
	Compare  compareCmd  `cmd:"" help:"Compare two card reports figure by figure."`
	Plot     plotCmd     `cmd:"" help:"Draw a verified card's roofline and thermal timeline as SVG."`
	View     viewCmd     `cmd:"" help:"Write a web page that verifies reports in a browser and shows them (index.html, printed)."`
	Check    checkCmd    `cmd:"" help:"Re-measure the devices signed cards describe and judge them against the cards (exit 0 ok, 1 degraded or failing, 2 unknown)."`
	Export   exportCmd   `cmd:"" help:"Write verified cards for fleet tools: NFD node labels, Prometheus metrics, an in-toto attestation."`
	Devices  devicesCmd  `cmd:"" help:"List the devices this machine has, included or excluded, with the reason."`
	Schema   schemaCmd   `cmd:"" help:"Print the JSON Schema of a report file."`
	Keys     keysCmd     `cmd:"" help:"Manage the tenant's signing key."`
	Version  versionCmd  `cmd:"" help:"Print the probe-suite version."`
}

// globals are flags every command accepts.
type globals struct {
	KeyDir         string `name:"key-dir" env:"APPRAISE_KEY_DIR" placeholder:"DIR" help:"Key directory (default $XDG_CONFIG_HOME/appraise)."`
	PassphraseFile string `name:"passphrase-file" type:"path" placeholder:"FILE" help:"Read the key passphrase from FILE (APPRAISE_PASSPHRASE takes precedence)."`
	Identity       string `name:"identity" type:"existingfile" placeholder:"FILE" help:"age identity file that unlocks a signing key encrypted to recipients."`
}

// env is what commands receive from main: their streams and environment.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	isTTY  bool
	// discover finds the adapters; appraisal.Discover when nil.
	discover func(inst *gpu.Instance, software bool, sysfsRoot string) ([]appraisal.Candidate, []error, error)
}

// printJSON writes v to stdout as indented JSON: every --json output.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func main() {
	setCrashMode()
	os.Exit(runMain(os.Args[1:], nil))
}

// runMain runs args with the process's environment, changed by with when
// not nil, its context cancelled by SIGINT or SIGTERM.
func runMain(args []string, with func(*env)) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer useRuntimeDir(os.Stderr)()
	e := &env{ctx: ctx, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, isTTY: isTerminal(os.Stderr)}
	if with != nil {
		with(e)
	}
	return run(ctx, args, e)
}

// useRuntimeDir points an unusable XDG_RUNTIME_DIR at a private directory;
// call it before any driver thread starts, and remove to clean up.
func useRuntimeDir(stderr io.Writer) (remove func()) {
	dir, rm, err := xdg.RuntimeDir(os.Getenv("XDG_RUNTIME_DIR"))
	if err != nil {
		fmt.Fprintf(stderr, "appraise: warning: no runtime directory for the Vulkan drivers: %v\n", err)
	}
	if rm == nil {
		return func() {}
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	return func() {
		if err := rm(); err != nil {
			fmt.Fprintf(stderr, "appraise: warning: %v\n", err)
		}
	}
}

// setCrashMode makes a runtime crash die by SIGABRT, not exit 2 (usage).
func setCrashMode() {
	debug.SetTraceback("crash")
}

// run parses args, runs the chosen command and returns the exit code.
func run(ctx context.Context, args []string, e *env) int {
	var c cli
	exit := -1
	parser, err := kong.New(&c,
		kong.Name("appraise"),
		kong.Description(description()),
		kong.Writers(e.stdout, e.stderr),
		kong.Exit(func(code int) { exit = code }),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Bind(e, &c.globals),
		kong.BindTo(ctx, (*context.Context)(nil)),
	)
	if err != nil {
		return report(e, fmt.Errorf("internal: %w", err))
	}
	kctx, err := parser.Parse(args)
	if exit >= 0 {
		return exit
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "appraise: error: %v\n", err)
		return exitUsage
	}
	return report(e, kctx.Run())
}

// report prints err in the house voice and returns its exit code.
func report(e *env, err error) int {
	if err == nil {
		return exitOK
	}
	var h hinter
	hint := ""
	if errors.As(err, &h) {
		hint = h.Hint()
	}
	code := exitCode(err)
	switch {
	case code == exitInterrupted && hint != "":
		fmt.Fprintf(e.stderr, "appraise: interrupted: %s\n", hint)
	case code == exitInterrupted:
		fmt.Fprintln(e.stderr, "appraise: interrupted")
	default:
		fmt.Fprintf(e.stderr, "appraise: error: %v\n", err)
		if hint != "" {
			fmt.Fprintf(e.stderr, "appraise: hint: %s\n", hint)
		}
	}
	return code
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	_, err := fmt.Fprintln(e.stdout, version)
	return err
}
