package main

import (
	"cmp"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"
)

// walker follows one options value through a program's call graph.
type walker struct {
	prog   *ssa.Program
	cg     *callgraph.Graph // VTA callees of the dynamic call sites
	module string           // the module's path: only its functions are walked
	dir    string           // the module's root, for file names
	isOpt  func(types.Type) bool
	// noResults leaves calls' results untainted (-results=false), a
	// stricter rule for comparison.
	noResults bool

	in    map[*ssa.Function]map[ssa.Value]bool // tainted parameters and free variables
	taint map[*ssa.Function]map[ssa.Value]bool // every tainted value, from in

	visited map[*ssa.Function]bool // steps taken, by origin
	passed  map[*ssa.Function]bool // synthetic wrappers walked through
	steps   []step
	order   []*ssa.Function // the function of each step
}

// edge is a call (or a closure's creation) that passes taint to callee:
// in are callee's parameters and free variables that receive it.
type edge struct {
	callee *ssa.Function
	in     []ssa.Value
	value  bool // the function value called is itself tainted
}

// walk runs the walk from root with seeds tainted: first the taint to a
// fixed point over every function it reaches, then the depth-first walk.
func (w *walker) walk(root *ssa.Function, seeds []ssa.Value) {
	w.in, w.taint = map[*ssa.Function]map[ssa.Value]bool{}, map[*ssa.Function]map[ssa.Value]bool{}
	w.visited, w.passed = map[*ssa.Function]bool{}, map[*ssa.Function]bool{}
	w.addIn(root, seeds)
	work := []*ssa.Function{root}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		w.taint[fn] = taintOf(fn, w.in[fn], w.resultTainted)
		for _, e := range w.edges(fn) {
			if w.addIn(e.callee, e.in) || w.taint[e.callee] == nil {
				w.taint[e.callee] = map[ssa.Value]bool{} // queued
				work = append(work, e.callee)
			}
		}
	}
	w.enter(root)
}

// addIn taints vs, parameters or free variables of fn; it reports whether
// any was new.
func (w *walker) addIn(fn *ssa.Function, vs []ssa.Value) bool {
	if w.in[fn] == nil {
		w.in[fn] = map[ssa.Value]bool{}
	}
	grew := false
	for _, v := range vs {
		if !w.in[fn][v] {
			w.in[fn][v], grew = true, true
		}
	}
	return grew
}

// enter takes fn as the next step (once per function, generic instances
// counting as their origin) and walks on from it; a synthetic wrapper
// (a bound method, a thunk) or a function of a generated file outside the
// module's tree (cgo's) is walked through without a step.
func (w *walker) enter(fn *ssa.Function) {
	k := origin(fn)
	pos := w.prog.Fset.Position(k.Pos())
	file, err := filepath.Rel(w.dir, pos.Filename)
	if fn.Syntax() == nil && fn.Origin() == nil || err != nil || !filepath.IsLocal(file) {
		if !w.passed[fn] {
			w.passed[fn] = true
			w.follow(fn)
		}
		return
	}
	if w.visited[k] {
		return
	}
	w.visited[k] = true
	w.steps = append(w.steps, step{Func: k.String(), Pkg: pkgPath(k), File: file, Line: pos.Line})
	w.order = append(w.order, fn)
	w.follow(fn)
}

// follow enters, in source order, every callee fn passes taint to.
func (w *walker) follow(fn *ssa.Function) {
	for _, e := range w.edges(fn) {
		w.enter(e.callee)
	}
}

// edges are the calls and closures of fn that pass taint on, in source
// order of their sites; callees outside the module are left out.
func (w *walker) edges(fn *ssa.Function) []edge {
	t := w.taint[fn]
	type site struct {
		instr ssa.Instruction
		pos   token.Pos
	}
	var sites []site
	for _, b := range fn.Blocks {
		last := token.NoPos
		for _, instr := range b.Instrs {
			if p := sitePos(instr); p.IsValid() {
				last = p
			}
			switch instr.(type) {
			case ssa.CallInstruction, *ssa.MakeClosure:
				sites = append(sites, site{instr, last})
			}
		}
	}
	slices.SortStableFunc(sites, func(a, b site) int { return cmp.Compare(a.pos, b.pos) })
	var out []edge
	for _, s := range sites {
		for _, e := range w.siteEdges(fn, s.instr, t) {
			if w.inModule(e.callee) && (len(e.in) > 0 || e.value) {
				out = append(out, e)
			}
		}
	}
	return out
}

// sitePos is where instr is in the source: a closure's creation is at its
// function literal. An instruction without a position (a bound method's
// creation) takes that of the last one before it in its block.
func sitePos(instr ssa.Instruction) token.Pos {
	if mc, ok := instr.(*ssa.MakeClosure); ok && !instr.Pos().IsValid() {
		return mc.Fn.Pos()
	}
	return instr.Pos()
}

// siteEdges are the edges of one site: a closure's creation binds its free
// variables; a call binds its callees' parameters (the receiver first for
// an interface method).
func (w *walker) siteEdges(fn *ssa.Function, s ssa.Instruction, t map[ssa.Value]bool) []edge {
	if mc, ok := s.(*ssa.MakeClosure); ok {
		callee := mc.Fn.(*ssa.Function)
		return []edge{{callee: callee, in: bound(t, mc.Bindings, callee.FreeVars)}}
	}
	call := s.(ssa.CallInstruction).Common()
	args := call.Args
	if call.IsInvoke() {
		args = append([]ssa.Value{call.Value}, args...)
	}
	var out []edge
	for _, callee := range w.callees(fn, s.(ssa.CallInstruction)) {
		params := make([]ssa.Value, len(callee.Params))
		for i, p := range callee.Params {
			params[i] = p
		}
		e := edge{callee: callee, in: bound(t, args, params)}
		e.value = !call.IsInvoke() && call.StaticCallee() == nil && t[call.Value]
		out = append(out, e)
	}
	return out
}

// bound are the values of to whose counterpart in from is tainted.
func bound[V ssa.Value](t map[ssa.Value]bool, from []ssa.Value, to []V) []ssa.Value {
	var out []ssa.Value
	for i := range min(len(from), len(to)) {
		if t[from[i]] {
			out = append(out, to[i])
		}
	}
	return out
}

// callees are the functions a call may reach: its static callee, else
// what variable type analysis (VTA) finds, in order of file and place
// (token.Pos alone would follow the order packages happened to load in).
func (w *walker) callees(fn *ssa.Function, site ssa.CallInstruction) []*ssa.Function {
	if c := site.Common().StaticCallee(); c != nil {
		return []*ssa.Function{c}
	}
	var out []*ssa.Function
	if n := w.cg.Nodes[fn]; n != nil {
		for _, e := range n.Out {
			if e.Site == site {
				out = append(out, e.Callee.Func)
			}
		}
	}
	slices.SortFunc(out, func(a, b *ssa.Function) int {
		pa, pb := w.prog.Fset.Position(a.Pos()), w.prog.Fset.Position(b.Pos())
		return cmp.Or(strings.Compare(pa.Filename, pb.Filename), cmp.Compare(pa.Offset, pb.Offset), strings.Compare(a.String(), b.String()))
	})
	return slices.CompactFunc(out, func(a, b *ssa.Function) bool { return a == b })
}

// resultTainted reports whether a call's result is derived when an
// argument is: the callee is a builtin, a dynamic call or one of the
// module's functions (and -results is on).
func (w *walker) resultTainted(call *ssa.CallCommon) bool {
	c := call.StaticCallee()
	return !w.noResults && (c == nil || w.inModule(c))
}

// inModule reports whether fn (or the method a wrapper calls) belongs to
// the module walked.
func (w *walker) inModule(fn *ssa.Function) bool {
	p := pkgPath(fn)
	return p == w.module || len(p) > len(w.module) && p[:len(w.module)+1] == w.module+"/"
}

// pkgPath is the import path of fn's package, or of the method a
// synthetic wrapper calls; "" when there is none.
func pkgPath(fn *ssa.Function) string {
	if fn.Pkg != nil {
		return fn.Pkg.Pkg.Path()
	}
	if o := origin(fn); o.Pkg != nil {
		return o.Pkg.Pkg.Path()
	}
	if o := fn.Object(); o != nil && o.Pkg() != nil {
		return o.Pkg().Path()
	}
	return ""
}

// origin is the generic function fn instantiates, else fn.
func origin(fn *ssa.Function) *ssa.Function {
	if o := fn.Origin(); o != nil {
		return o
	}
	return fn
}

// taintOf is every value of fn derived from in: flow-insensitive, to a
// fixed point. A value is derived when an operand is (a field, a copy, a
// conversion, an element, a closure binding it); a call's result when an
// argument is and the callee is a builtin, a dynamic call or one of the
// module's functions; an address, and the variable or slice it points
// into, when a derived value is stored there (a struct or slice built
// from the options). Errors are never derived: an error is not a setting.
func taintOf(fn *ssa.Function, in map[ssa.Value]bool, resultTainted func(*ssa.CallCommon) bool) map[ssa.Value]bool {
	t := map[ssa.Value]bool{}
	for v := range in {
		t[v] = true
	}
	for changed := true; changed; {
		changed = false
		set := func(v ssa.Value) {
			if v != nil && !t[v] && !isError(v.Type()) {
				t[v], changed = true, true
			}
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch in := instr.(type) {
				case *ssa.Store:
					if t[in.Val] {
						for a := in.Addr; a != nil; a = base(a) {
							set(a)
						}
					}
				case *ssa.MapUpdate:
					if t[in.Value] || t[in.Key] {
						set(in.Map)
					}
				case *ssa.Send:
					if t[in.X] {
						set(in.Chan)
					}
				case *ssa.Call:
					if resultTainted(&in.Call) && anyTainted(t, append([]ssa.Value{in.Call.Value}, in.Call.Args...), nil) {
						set(in)
					}
				case ssa.Value:
					if anyTainted(t, nil, instr.Operands(nil)) {
						set(in)
					}
				}
			}
		}
	}
	return t
}

// anyTainted reports whether any of vs, or the operands ops point to, is
// tainted.
func anyTainted(t map[ssa.Value]bool, vs []ssa.Value, ops []*ssa.Value) bool {
	for _, v := range vs {
		if t[v] {
			return true
		}
	}
	for _, v := range ops {
		if v != nil && *v != nil && t[*v] {
			return true
		}
	}
	return false
}

// base is what an address points into: the struct of a field, the array
// or slice of an element; nil for anything else (and for a global, which
// is never tainted).
func base(a ssa.Value) ssa.Value {
	var b ssa.Value
	switch a := a.(type) {
	case *ssa.FieldAddr:
		b = a.X
	case *ssa.IndexAddr:
		b = a.X
	case *ssa.Slice:
		b = a.X
	}
	if _, ok := b.(*ssa.Global); ok {
		return nil
	}
	return b
}

// isError reports whether t is the error interface.
func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// receivers are the distinct (non-closure) functions of package pkg on
// the walk that receive a value of the options type itself: a tainted
// parameter of that type.
func (w *walker) receivers(pkg string) []string {
	var out []string
	for _, fn := range w.order {
		if fn.Parent() != nil || pkgPath(fn) != pkg {
			continue
		}
		for v := range w.in[fn] {
			if w.isOpt(v.Type()) {
				out = append(out, origin(fn).String())
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
