// Optwalk measures how far a reader must travel to follow one options
// value through a Go module: the "options walk".
//
// Usage, from the root of the module walked, cgo set up as for a build
// (it is its own module, so that the product's go.mod gains nothing: build
// it from here, run it there or point -dir there):
//
//	. scripts/cgo-env
//	go -C bench/optwalk build -o ../../bin/optwalk .
//	bin/optwalk -root github.com/everycycle/appraise/internal/appraisal.Appraise \
//		-type github.com/everycycle/appraise/internal/appraisal.Options [-n 400] [-v] [-results=false]
//
// The definition it applies, which it also prints, is Definition.
package main

// Definition is what the walk counts, printed with every result.
const Definition = `The options walk (bench/optwalk):
- Program: the root's package and its dependencies, built in SSA form
  (golang.org/x/tools/go/ssa, generics instantiated); only the module's
  own functions, test files excluded, are walked.
- Seeds: the root's parameters of the options type (or a pointer to it);
  if it has none, every value of that type in the root.
- Taint (flow-insensitive, within each function, to a fixed point): a
  value is derived from the options when an operand is (a field, a copy,
  a conversion, an element, a closure's binding); a call's result when an
  argument is and the callee is a builtin, a dynamic call or one of the
  module's functions (-results=false drops this, for comparison); an address, and the variable or slice it points
  into, when a derived value is stored there (a struct built from it).
  Errors are never derived. Taint goes forward only (into callees), and a
  function's tainted parameters are the union over every call that
  reaches it.
- Edges: a call passes the options when an argument (the receiver
  included) is derived, or the function value called is; its callees are
  the static callee, else those variable type analysis (VTA) finds. A
  closure or method value whose bindings are derived is an edge at its
  creation.
- Walk: depth-first from the root, each function's edges in source order
  of their sites; each function visited once (generic instances as their
  origin); synthetic wrappers, and cgo's generated functions, are walked
  through without a step. Each
  visit is a step; its file is that of the function's declaration.
- Counts, over the first N steps: stays, maximal runs of consecutive
  steps in one file; files, distinct files; returns, stays whose file an
  earlier stay had left; climbs, consecutive steps from a package to one
  that (transitively) imports it, against the dependency order.
  Receivers: distinct non-closure functions of the options type's package
  anywhere on the walk that receive a value of the options type itself.`
