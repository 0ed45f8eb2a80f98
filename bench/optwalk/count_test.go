package main

import "testing"

// TestCount counts a hand-made walk: a → a (one stay), b, a again (a
// return), c, b again (a return), where c imports b and b imports a.
func TestCount(t *testing.T) {
	steps := []step{
		{Func: "a.F", Pkg: "a", File: "a/f.go"},
		{Func: "a.G", Pkg: "a", File: "a/f.go"},
		{Func: "b.H", Pkg: "b", File: "b/h.go"},
		{Func: "a.I", Pkg: "a", File: "a/f.go"},
		{Func: "c.J", Pkg: "c", File: "c/j.go"},
		{Func: "b.K", Pkg: "b", File: "b/k.go"},
		{Func: "b.L", Pkg: "b", File: "b/h.go"},
	}
	imports := func(x, y string) bool {
		return (x == "b" && y == "a") || (x == "c" && (y == "b" || y == "a"))
	}
	got, marks := count(steps, imports)
	// a.G → b.H climbs (b imports a); b.H → a.I goes down; a.I → c.J
	// climbs; c.J → b.K goes down. a/f.go and b/h.go are each returned to.
	want := counts{Steps: 7, Stays: 6, Files: 4, Returns: 2, Climbs: 2}
	if got != want {
		t.Errorf("count = %+v, want %+v", got, want)
	}
	wantMarks := []mark{{}, {}, {Climb: true}, {Return: true}, {Climb: true}, {}, {Return: true}}
	for i := range marks {
		if marks[i] != wantMarks[i] {
			t.Errorf("step %d (%s): mark %+v, want %+v", i, steps[i].Func, marks[i], wantMarks[i])
		}
	}
}

// TestCountEmpty counts no steps as nothing.
func TestCountEmpty(t *testing.T) {
	if got, _ := count(nil, func(a, b string) bool { return true }); got != (counts{}) {
		t.Errorf("count(nil) = %+v, want zero", got)
	}
}
