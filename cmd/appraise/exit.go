package main

import (
	"context"
	"errors"
	"os"

	"golang.org/x/term"

	"github.com/everycycle/appraise/schema"
)

// Exit codes. Keep this table, description and the README in step.
const (
	exitOK          = 0 // success
	exitError       = 1 // any other failure
	exitUsage       = 2 // bad command line, or a file of the wrong kind
	exitVerify      = 3 // a report failed verification, or its key is not trusted
	exitNoDevice    = 4 // no device to appraise
	exitProbe       = 5 // a probe or its reference check failed: nothing was signed
	exitEnvDiffers  = 6 // compare: probe environments differ (use --force)
	exitKey         = 7 // key missing, locked, wrong passphrase or unsafe permissions
	exitCrossCheck  = 8 // --cross-check: a standard tool disagrees: nothing was signed
	exitConsistency = 9 // two figures of a GPU's card that measure the same thing disagree after re-measuring: nothing was signed
	exitInterrupted = 130
)

const description = `Measures what a physical GPU can actually do, writes it down as a validated
capability vector, and signs it.

Exit codes:
  0  success
  1  any other failure
  2  bad command line, or a file of the wrong kind (a box given for a card)
  3  a report failed verification, or its key is not trusted
  4  no device to appraise
  5  a probe or its reference check failed: nothing was signed
  6  compare: probe environments differ (use --force)
  7  key missing, locked, wrong passphrase or unsafe permissions
  8  --cross-check: a standard tool disagrees: nothing was signed
  9  two figures of a GPU's card that measure the same thing disagree
     beyond their rule, also after re-measuring: nothing was signed
  130 interrupted`

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
