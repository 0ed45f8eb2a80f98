package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for mpb's writer goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressBars: on a terminal a long probe gets a bar with its
// percentage; elsewhere nothing is written at all.
func TestProgressBars(t *testing.T) {
	var quiet syncBuffer
	pr := newProgress(&env{ctx: context.Background(), stderr: &quiet})
	pr.set("0000:00:06.0", "webgpu-memtest")
	pr.step("0000:00:06.0", "webgpu-memtest", 5, 10)
	pr.done()
	if quiet.String() != "" {
		t.Errorf("not a terminal, but wrote %q", quiet.String())
	}

	var tty syncBuffer
	pr = newProgress(&env{ctx: context.Background(), stderr: &tty, isTTY: true})
	pr.set("0000:00:06.0", "webgpu-soak")
	pr.step("0000:00:06.0", "webgpu-soak", 30, 120)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(tty.String(), "25 %") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	pr.step("0000:00:06.0", "webgpu-soak", 120, 120)
	pr.done()
	out := tty.String()
	if !strings.Contains(out, "0000:00:06.0: webgpu-soak") || !strings.Contains(out, "25 %") {
		t.Errorf("terminal output lacks the soak bar at 25 %%: %q", out)
	}
}
