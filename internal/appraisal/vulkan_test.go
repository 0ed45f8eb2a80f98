package appraisal

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestProbeFailed: a probe's failure is an ErrProbe naming the probe once,
// whether or not the probe's own error begins with its name.
func TestProbeFailed(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("dot4-uint8: %w", context.Canceled), "probe failed: dot4-uint8: context canceled"},
		{fmt.Errorf("coopmat: 16x16x16: %w", context.Canceled), "probe failed: dot4-uint8: coopmat: 16x16x16: context canceled"},
		{fmt.Errorf("dot4-uint8x: %w", context.Canceled), "probe failed: dot4-uint8: dot4-uint8x: context canceled"},
	} {
		err := probeFailed("dot4-uint8", tc.err)
		if err.Error() != tc.want || !errors.Is(err, ErrProbe) || !errors.Is(err, context.Canceled) {
			t.Errorf("probeFailed(%q) = %q, want %q wrapping ErrProbe and the cause", tc.err, err, tc.want)
		}
	}
}
