package main

import (
	"errors"
	"flag"
	"fmt"
	"go/types"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "optwalk: error:", err)
		os.Exit(1)
	}
}

// run parses args, walks and prints the definition, the counts and, with
// -v, the step list.
func run(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("optwalk", flag.ContinueOnError)
	dir := fs.String("dir", ".", "root of the module walked")
	root := fs.String("root", "", "root function, as go/ssa names it: pkgpath.F or (*pkgpath.T).M")
	typ := fs.String("type", "", "options type: pkgpath.T")
	n := fs.Int("n", 400, "steps counted")
	verbose := fs.Bool("v", false, "print the step list")
	results := fs.Bool("results", true, "taint a call's result when an argument is tainted (false: a stricter rule, for comparison)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *root == "" || *typ == "" {
		return errors.New("-root and -type are required")
	}
	w, fn, importsOf, err := load(*dir, *root, *typ)
	if err != nil {
		return err
	}
	w.noResults = !*results
	w.walk(fn, seeds(fn, w.isOpt))
	counted := w.steps[:min(*n, len(w.steps))]
	c, marks := count(counted, importsOf)
	fmt.Fprintf(out, "%s\n\nroot    %s\ntype    %s\nresults %t\nsteps   %d walked, the first %d counted\n\n", Definition, *root, *typ, *results, len(w.steps), len(counted))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "stays\tfiles\treturns\tclimbs\treceivers\t")
	recv := w.receivers(typePkg(*typ))
	fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t\n", c.Stays, c.Files, c.Returns, c.Climbs, len(recv))
	if err := tw.Flush(); err != nil {
		return err
	}
	if *verbose {
		fmt.Fprintf(out, "\nreceivers\n  %s\n", strings.Join(recv, "\n  "))
		fmt.Fprintln(out, "\nstep  R=returns to a file, C=climbs")
		for i, s := range counted {
			fmt.Fprintf(out, "%4d %s%s %s:%d %s\n", i+1, flag1(marks[i].Return, "R"), flag1(marks[i].Climb, "C"), s.File, s.Line, s.Func)
		}
	}
	return nil
}

// flag1 is s when b, else a blank of its width.
func flag1(b bool, s string) string {
	if b {
		return s
	}
	return " "
}

// load builds the SSA program of the root's package and its dependencies
// in dir, and returns a walker for it, the root function and the
// packages' transitive import relation.
func load(dir, root, typ string) (*walker, *ssa.Function, func(a, b string) bool, error) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax | packages.NeedModule, Dir: dir}
	pkgs, err := packages.Load(cfg, rootPkg(root))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("loading %s: %w", rootPkg(root), err)
	}
	if packages.PrintErrors(pkgs) > 0 || len(pkgs) != 1 || pkgs[0].Module == nil {
		return nil, nil, nil, fmt.Errorf("loading %s: errors or no module", rootPkg(root))
	}
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	var fn *ssa.Function
	for f := range ssautil.AllFunctions(prog) {
		if f.String() == root {
			fn = f
		}
	}
	if fn == nil {
		return nil, nil, nil, fmt.Errorf("no function %s", root)
	}
	isOpt := func(t types.Type) bool {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path()+"."+n.Obj().Name() == typ
	}
	w := &walker{prog: prog, cg: vta.CallGraph(ssautil.AllFunctions(prog), nil), module: pkgs[0].Module.Path, dir: pkgs[0].Module.Dir, isOpt: isOpt}
	return w, fn, importsRelation(pkgs), nil
}

// seeds are fn's parameters of the options type, else every value of
// that type in fn.
func seeds(fn *ssa.Function, isOpt func(types.Type) bool) []ssa.Value {
	var out []ssa.Value
	for _, p := range fn.Params {
		if isOpt(p.Type()) {
			out = append(out, p)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if v, ok := instr.(ssa.Value); ok && isOpt(v.Type()) {
				out = append(out, v)
			}
		}
	}
	return out
}

// importsRelation reports whether package a (transitively) imports b,
// over pkgs and their dependencies.
func importsRelation(pkgs []*packages.Package) func(a, b string) bool {
	direct := map[string][]string{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for path := range p.Imports {
			direct[p.PkgPath] = append(direct[p.PkgPath], path)
		}
	})
	reach := map[string]map[string]bool{}
	var closure func(a string) map[string]bool
	closure = func(a string) map[string]bool {
		if r, ok := reach[a]; ok {
			return r
		}
		r := map[string]bool{}
		reach[a] = r
		for _, b := range direct[a] {
			r[b] = true
			for c := range closure(b) {
				r[c] = true
			}
		}
		return r
	}
	return func(a, b string) bool { return closure(a)[b] }
}

// rootPkg is the package path in a function's SSA name: pkgpath.F,
// (pkgpath.T).M or (*pkgpath.T).M.
func rootPkg(root string) string {
	s := strings.TrimLeft(root, "(*")
	if i := strings.Index(s, ")"); i >= 0 {
		s = s[:i]
	}
	return typePkg(s)
}

// typePkg is the package path of pkgpath.Name.
func typePkg(name string) string {
	if i := strings.LastIndex(name, "."); i > strings.LastIndex(name, "/") {
		return name[:i]
	}
	return name
}
