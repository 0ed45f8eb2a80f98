package cublaslt

import (
	"os"
	"path/filepath"
	"slices"
)

// EnvLibrary names the cuBLASLt file to load when no path is given.
const EnvLibrary = "APPRAISE_CUBLASLT"

// sonames are the cuBLASLt major versions the probe knows, newest first.
var sonames = []string{"libcublasLt.so.13", "libcublasLt.so.12"}

// LoadOptions say where to look for the libraries.
type LoadOptions struct {
	Path   string              // the cuBLASLt file; when set, only it is tried
	Driver string              // the CUDA driver; "": libcuda.so.1 via the loader
	Getenv func(string) string // nil: os.Getenv
	Root   string              // prefixed to every searched path; "": "/"
}

// candidate is one place to try, in order.
type candidate struct {
	path   string // a file, or a soname for the dynamic loader
	source string // "option", "env", "loader", "search"
}

// candidates lists where to look: the explicit path, else $APPRAISE_CUBLASLT,
// else the sonames, then the CUDA toolkits and pip wheels found.
func (o LoadOptions) candidates() []candidate {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if o.Path != "" {
		return []candidate{{o.Path, "option"}}
	}
	if p := getenv(EnvLibrary); p != "" {
		return []candidate{{p, "env"}}
	}
	var out []candidate
	for _, s := range sonames {
		out = append(out, candidate{s, "loader"})
	}
	for _, f := range o.searchFiles(getenv) {
		out = append(out, candidate{f, "search"})
	}
	return out
}

// searchFiles globs the usual install places for each soname, newest first.
func (o LoadOptions) searchFiles(getenv func(string) string) []string {
	root := o.Root
	if root == "" {
		root = "/"
	}
	dirs := []string{"/usr/local/cuda*/lib64", "/usr/local/cuda*/targets/*/lib"}
	for _, sp := range sitePackages(getenv) {
		dirs = append(dirs, sp+"/nvidia/cublas/lib", sp+"/nvidia/cu13/lib", sp+"/nvidia/cu12/lib")
	}
	var out []string
	for _, so := range sonames {
		for _, d := range dirs {
			matches, _ := filepath.Glob(filepath.Join(root, d, so))
			slices.Sort(matches)
			slices.Reverse(matches) // cuda-13.1 before cuda-13.0, python3.12 before 3.11
			for _, m := range matches {
				if !slices.Contains(out, m) {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// sitePackages is the glob patterns of Python package directories.
func sitePackages(getenv func(string) string) []string {
	pats := []string{
		"/usr/lib/python3*/dist-packages",
		"/usr/lib/python3/dist-packages",
		"/usr/local/lib/python3*/site-packages",
		"/usr/local/lib/python3*/dist-packages",
		"/usr/lib64/python3*/site-packages",
	}
	for _, prefix := range []string{getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX"), "/opt/conda", "/opt/miniconda3", "/opt/venv"} {
		if prefix != "" {
			pats = append(pats, prefix+"/lib/python3*/site-packages")
		}
	}
	if home := getenv("HOME"); home != "" {
		pats = append(pats, home+"/.local/lib/python3*/site-packages",
			home+"/miniconda3/lib/python3*/site-packages", home+"/anaconda3/lib/python3*/site-packages")
	}
	return pats
}
