package main

// step is one function the walk visits.
type step struct {
	Func string // the function, as go/ssa names it
	Pkg  string // its package's import path
	File string // its file, relative to the module's root
	Line int    // the line of its declaration
}

// counts are the walk's figures over the steps counted.
type counts struct {
	Steps   int // steps counted
	Stays   int // maximal runs of consecutive steps in one file
	Files   int // distinct files
	Returns int // stays whose file an earlier stay had already left
	Climbs  int // steps from a package to one that (transitively) imports it
}

// mark says what a step begins, for the step list: "R" a stay that
// returns to a file already left, "C" a climb; "" otherwise.
type mark struct{ Return, Climb bool }

// count counts steps. imports reports whether package a (transitively)
// imports package b.
func count(steps []step, imports func(a, b string) bool) (counts, []mark) {
	c := counts{Steps: len(steps)}
	marks := make([]mark, len(steps))
	left := map[string]bool{}
	files := map[string]bool{}
	for i, s := range steps {
		files[s.File] = true
		if i == 0 || s.File != steps[i-1].File {
			c.Stays++
			if i > 0 {
				left[steps[i-1].File] = true
			}
			if left[s.File] {
				c.Returns++
				marks[i].Return = true
			}
		}
		if i > 0 && s.Pkg != steps[i-1].Pkg && imports(s.Pkg, steps[i-1].Pkg) {
			c.Climbs++
			marks[i].Climb = true
		}
	}
	c.Files = len(files)
	return c, marks
}
