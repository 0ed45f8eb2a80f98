package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/everycycle/appraise/schema"
)

// Exit codes. Each has one meaning, given in exitCodes.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitVerify      = 3
	exitNoDevice    = 4
	exitProbe       = 5
	exitEnvDiffers  = 6
	exitKey         = 7
	exitCrossCheck  = 8
	exitConsistency = 9
	exitBusy        = 10
	exitDeviceFail  = 11
	exitInterrupted = 130
	exitKilled      = 137
	exitAborted     = 134
	exitSegfault    = 139
)

// exitCodes is the one table of exit codes, printed by --help and kept in
// step with the README; the last three are a shell's for a signal.
// Whatever the code, a run's report files are all written or none is.
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success"},
	{exitError, "any other failure: the filesystem (a full disk, a read-only directory) or a tool that could not run; with --cross-check, a tool not found, or whose smallest run fails or prints what cannot be read (nothing was probed)"},
	{exitUsage, "bad command line, found before anything is probed or unlocked: an option out of range, an --out the run cannot use, a file of the wrong kind (compare or plot given a box, a key, a schema)"},
	{exitVerify, "a report failed verification, or its key is not trusted"},
	{exitNoDevice, "no device to appraise: no Vulkan adapter at all, or none included (appraise devices says why)"},
	{exitProbe, "a probe or its reference check failed: nothing was signed"},
	{exitEnvDiffers, "compare: probe environments differ (use --force)"},
	{exitKey, "the signing key: missing, already there (keys init), in use by another appraise, wrong passphrase or identity, corrupt, unsafe permissions, or rotated during the run"},
	{exitCrossCheck, "--cross-check: a standard tool disagrees: nothing was signed"},
	{exitConsistency, "two figures of a GPU's card that measure the same thing disagree beyond their rule, also after re-measuring: nothing was signed"},
	{exitBusy, "a device was in use by another process, before probing or during the run: nothing was signed (--allow-shared signs and records who else ran)"},
	{exitDeviceFail, "one or more devices failed (a probe, a check, a rule): each has no card, the box lists it with the reason (failed_devices); the other devices' cards were signed and written"},
	{exitInterrupted, "interrupted (SIGINT or SIGTERM): nothing was signed"},
	{exitAborted, "crashed: a Go runtime error or panic (SIGABRT, traceback on stderr)"},
	{exitKilled, "killed (SIGKILL), e.g. by the out-of-memory killer"},
	{exitSegfault, "crashed in native code (SIGSEGV), e.g. in a Vulkan driver"},
}

// description is the command's help text, ending with the exit codes.
func description() string {
	var b strings.Builder
	b.WriteString("Measures what a physical GPU can actually do, writes it down as a validated\ncapability vector, and signs it.\n\nExit codes:")
	for _, c := range exitCodes {
		fmt.Fprintf(&b, "\n  %-4d %s", c.code, wrap(c.meaning, 66, "\n       "))
	}
	return b.String()
}

// wrap breaks s at spaces into lines of at most width, joined by sep.
func wrap(s string, width int, sep string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), sep)
}

// codedError carries an exit code and an optional hint for the user.
type codedError struct {
	code int
	hint string
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }
func (e *codedError) Hint() string  { return e.hint }

// withCode wraps err with an exit code and a hint.
func withCode(code int, err error, hint string) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, hint: hint, err: err}
}

// interrupted is the error of an appraisal stopped by SIGINT or SIGTERM.
func interrupted() error {
	return withCode(exitInterrupted, context.Canceled, "nothing was signed")
}

type hinter interface{ Hint() string }

// exitCode maps an error to its exit code, in one place.
func exitCode(err error) int {
	var ce *codedError
	switch {
	case errors.As(err, &ce):
		return ce.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, schema.ErrBadSignature), errors.Is(err, schema.ErrMalformed), errors.Is(err, schema.ErrInvalid):
		return exitVerify
	}
	return exitError
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
