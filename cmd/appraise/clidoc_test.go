package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/rogpeppe/go-internal/diff"
)

//go:generate go test -count=1 -run ^TestCLIDoc$ -update .

// cliDocPath is the command-line reference: every command's --help.
const cliDocPath = "../../docs/cli.md"

// TestCLIDoc: docs/cli.md is every command's --help as appraise prints it
// (80 columns, as on a pipe). After changing a flag or a help text, run
// 'go generate ./cmd/appraise' (or this test with -update) to rewrite it.
func TestCLIDoc(t *testing.T) {
	t.Setenv("COLUMNS", "80") // kong wraps help to $COLUMNS when set
	got := cliDoc(t)
	if *updateScripts {
		if err := os.WriteFile(cliDocPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("docs/cli.md is not what --help prints; rewrite it with 'go generate ./cmd/appraise':\n%s",
			diff.Diff("docs/cli.md", want, "appraise --help", got))
	}
}

// cliDoc writes the reference: a section per command, in the order of
// the command tree, each holding that command's --help.
func cliDoc(t *testing.T) []byte {
	parser, err := kong.New(&cli{}, kong.Name("appraise"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(cliDocHeader)
	for _, path := range commandPaths(parser.Model.Node, nil) {
		var out, errOut bytes.Buffer
		ctx := context.Background()
		e := &env{ctx: ctx, stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
		if code := run(ctx, append(path, "--help"), e); code != 0 || errOut.Len() > 0 {
			t.Fatalf("appraise %s --help: exit %d, stderr %q", strings.Join(path, " "), code, errOut.String())
		}
		name := strings.Join(append([]string{"appraise"}, path...), " ")
		fmt.Fprintf(&b, "\n## %s\n\n```text\n%s```\n", name, out.String())
	}
	return b.Bytes()
}

// commandPaths lists the command paths under n, n's own first.
func commandPaths(n *kong.Node, prefix []string) [][]string {
	out := [][]string{prefix}
	for _, c := range n.Children {
		if c.Type != kong.CommandNode || c.Hidden {
			continue
		}
		p := append(append([]string{}, prefix...), c.Name)
		out = append(out, commandPaths(c, p)...)
	}
	return out
}

const cliDocHeader = `# Command-line reference

Every command's ` + "`--help`" + `, as ` + "`appraise`" + ` prints it. This file is generated:
` + "`go generate ./cmd/appraise`" + ` rewrites it, and ` + "`TestCLIDoc`" + ` fails, with a
diff, when it differs from the help. What the commands are for, with
examples, is in the [README](../README.md) and the
[other docs](../README.md#documentation).
`
