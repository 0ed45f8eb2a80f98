// Package layers holds the test of the project's layers: which packages
// may import which, as docs/architecture.md draws them.
package layers

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/everycycle/appraise/"

// layers maps the project's packages to the layers of docs/architecture.md,
// by path: a package belongs to the layer of the longest prefix naming it.
var layers = map[string]string{
	"cmd":                            "cmd",
	"internal/appraisal":             "appraisal",
	"internal/export":                "export",
	"internal/health":                "export",
	"verify":                         "verify",
	"keys":                           "keys",
	"internal/crosscheck":            "crosscheck",
	"internal/crosscheck/toolrun":    "tools",
	"babelstream":                    "tools",
	"mixbench":                       "tools",
	"internal/render":                "render",
	"internal/rundir":                "rundir",
	"gpu":                            "webgpu",
	"wgsl":                           "wgsl",
	"coopmat":                        "vulkan",
	"coopmat/vk":                     "vk",
	"coopmat/spirv":                  "spirv",
	"internal/probe":                 "contract",
	"internal/probe/cpu":             "cpu",
	"internal/probe/cublaslt":        "cublaslt",
	"internal/probe/peer":            "peer",
	"internal/platform":              "platform",
	"internal/xdg":                   "platform",
	"internal/measure":               "measure",
	"schema":                         "schema",
	"internal/jcs":                   "jcs",
	"web":                            "web",
	"deploy":                         "deploy",
	"bench":                          "bench",
	"coopmat/vk/vktest":              "testing",
	"internal/export/tooltest":       "testing",
	"internal/probe/cublaslt/fakelt": "testing",
	"internal/layers":                "testing",
}

// beneathProbes are the layers beneath every probe.
var beneathProbes = []string{"contract", "platform", "measure", "schema"}

// allowed are the layers each layer's non-test code may import besides
// its own package. A layer that names itself may import its other
// packages; the probe layers do not, so coopmat, coopmat/alu and
// coopmat/link stand beside one another.
var allowed = map[string][]string{
	"cmd":        {"appraisal", "export", "verify", "keys", "crosscheck", "render", "webgpu", "cublaslt", "platform", "schema", "web"},
	"appraisal":  {"webgpu", "vulkan", "vk", "cpu", "cublaslt", "peer", "crosscheck", "render", "rundir", "contract", "platform", "measure", "schema", "jcs"},
	"export":     {"render", "schema"},
	"verify":     {"keys", "schema", "jcs"},
	"keys":       {"schema", "jcs"},
	"crosscheck": {"tools", "render", "contract", "platform", "measure", "schema"},
	"tools":      {"tools", "schema"},
	"render":     {"schema"},
	"rundir":     {},
	"webgpu":     append([]string{"wgsl"}, beneathProbes...),
	"wgsl":       {},
	"vulkan":     append([]string{"vk", "spirv"}, beneathProbes...),
	"vk":         {"spirv", "measure", "schema"},
	"spirv":      {},
	"cpu":        beneathProbes,
	"cublaslt":   beneathProbes,
	"peer":       beneathProbes,
	"contract":   {"schema"},
	"platform":   {"platform", "measure", "schema"},
	"measure":    {"measure", "schema"},
	"schema":     {"schema", "jcs"},
	"jcs":        {},
	"web":        {},
	"deploy":     {},
	"testing":    {"testing", "vk", "spirv"},
}

// layerOf is the layer of pkg, a path inside the module ("" if none).
func layerOf(pkg string) string {
	best := ""
	for prefix := range layers {
		if (pkg == prefix || strings.HasPrefix(pkg, prefix+"/")) && len(prefix) > len(best) {
			best = prefix
		}
	}
	return layers[best]
}

// pkg is one package as go list describes it.
type pkg struct {
	path        string
	imports     []string // non-test imports inside the module
	testImports []string // its tests' imports inside the module
}

// root is the module's root directory.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// list runs go list over the module, the explore tag included, and
// returns every package.
func list(t *testing.T, dir string) []pkg {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(gobin, "list", "-e", "-tags", "explore", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`, "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	inModule := func(s string) []string {
		var ps []string
		for f := range strings.FieldsSeq(s) {
			if p, ok := strings.CutPrefix(f, module); ok {
				ps = append(ps, p)
			}
		}
		return ps
	}
	var ps []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "|")
		if len(f) != 3 {
			t.Fatalf("go list line %q", sc.Text())
		}
		path, _ := strings.CutPrefix(f[0], module)
		ps = append(ps, pkg{path: path, imports: inModule(f[1]), testImports: inModule(f[2])})
	}
	return ps
}

// TestLayers: every package of the module is in a layer, and imports only
// what its layer may (allowed). Tests may import any package but cmd and
// bench; the test helpers are imported only by tests and bench; nothing
// imports cmd, and nothing outside bench imports bench.
func TestLayers(t *testing.T) {
	ps := list(t, root(t))
	if len(ps) < 20 {
		t.Fatalf("go list found %d packages", len(ps))
	}
	for _, p := range ps {
		from := layerOf(p.path)
		if from == "" {
			t.Errorf("%s is in no layer: add it to layers and to docs/architecture.md's picture", p.path)
			continue
		}
		for _, imp := range p.imports {
			to := layerOf(imp)
			if to == from && slices.Contains(allowed[from], from) || from == "bench" && to != "cmd" {
				continue
			}
			if !slices.Contains(allowed[from], to) {
				t.Errorf("%s (%s) imports %s (%s)", p.path, from, imp, to)
			}
		}
		for _, imp := range p.testImports {
			if to := layerOf(imp); to == "cmd" && from != "cmd" || to == "bench" && from != "bench" {
				t.Errorf("tests of %s (%s) import %s (%s)", p.path, from, imp, to)
			}
		}
	}
}

// TestResearchInBench: no file outside bench/ carries the explore build
// tag, and no package outside bench/ exports an Explore function.
func TestResearchInBench(t *testing.T) {
	dir := root(t)
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if e.IsDir() {
			if rel == "bench" || rel == "web" || strings.HasPrefix(e.Name(), ".") && rel != "." || e.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, g := range f.Comments {
			if g.Pos() >= f.Package {
				break
			}
			for _, c := range g.List {
				if x, err := constraint.Parse(c.Text); err == nil && mentions(x, "explore") {
					t.Errorf("%s: explore build tag outside bench/", rel)
				}
			}
		}
		for _, d := range f.Decls {
			if name := funcName(d); strings.HasPrefix(name, "Explore") {
				t.Errorf("%s: %s is research: it belongs under bench/", rel, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// funcName is d's name if d is a function or method, else "".
func funcName(d ast.Decl) string {
	if f, ok := d.(*ast.FuncDecl); ok {
		return f.Name.Name
	}
	return ""
}

// mentions reports whether x names tag.
func mentions(x constraint.Expr, tag string) bool {
	switch x := x.(type) {
	case *constraint.TagExpr:
		return x.Tag == tag
	case *constraint.NotExpr:
		return mentions(x.X, tag)
	case *constraint.AndExpr:
		return mentions(x.X, tag) || mentions(x.Y, tag)
	case *constraint.OrExpr:
		return mentions(x.X, tag) || mentions(x.Y, tag)
	}
	return false
}
