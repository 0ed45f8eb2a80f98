package main

import (
	"testing"
	"time"

	"github.com/alecthomas/kong"
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
		var cl cli
		p, err := kong.New(&cl, kong.Exit(func(int) { t.Fatalf("%v: parser exited", c.args) }))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Parse(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		got := cl.Appraise.Soak
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%v: soak %v, want %v", c.args, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
