// Package tidy holds a test that fails the build on constructs that would
// leak host nondeterminism into a universe, which must be a function of
// its inputs and seed alone: the host clock, the global math/rand,
// goroutines, host I/O, and map iteration, inside the packages a universe
// is made of.
package tidy

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// universeDirs are the folders whose code runs inside a universe.
var universeDirs = []string{"isa", "emu", "devices", "hw"}

// bannedImports may not be imported inside a universe, with the reason.
var bannedImports = map[string]string{
	"time":        "time comes from retired instructions, never the host clock",
	"math/rand":   "randomness comes from the universe's seeded PRNG",
	"crypto/rand": "randomness comes from the universe's seeded PRNG",
	"os":          "no host I/O inside a universe (load inputs before it starts)",
	"io/ioutil":   "no host I/O inside a universe",
	"net":         "no host network inside a universe",
	"os/exec":     "no host processes inside a universe",
	"sync":        "a universe runs on one goroutine and needs no locks",
}

// allowed lists exceptions: a file (relative to the repo root) and the import
// it may use, with the reason.
var allowed = map[string]string{
	"emu/mem.go sync/atomic":       "owner ids for copy-on-write; never reach guest state",
	"emu/machine.go sync/atomic":   "SetCancel's flag, which another goroutine sets to end a run between rounds (a wall-time budget); it is read only where a round is planned, and a run stopped there is thrown away or continues unchanged, so it never reaches guest state",
	"emu/jit.go sync/atomic":       "JIT translations are shared by every machine of the process and published when their code is sealed; they never reach guest state",
	"emu/jit_amd64.go sync":        "the lock of the process-wide translation cache; translations are pure functions of guest bytes and never reach guest state",
	"emu/jit_amd64.go sync/atomic": "the bitmap of translated heads, read without the translation cache's lock: a hint about a cache, never guest state",
	"emu/imagepages.go sync":       "the lock of the process-wide cache of image pages; a page's bytes are the image's whichever machine loaded it first, so sharing never reaches guest state",
	"emu/block.go sync/atomic":     "the slots and JIT fields of code pages shared by the machines holding a page no machine writes in place; a block is a pure function of that page, and its JIT fields only choose the engine's path, never guest state",
	"emu/sharedcode.go sync":       "the lock of the process-wide cache of blocks decoded from shared pages; a block is a pure function of a page no machine writes in place, so sharing never reaches guest state",
	"emu/board/spec.go os":         "a spec's images are read and hashed before the universe starts (Build takes loaded images)",
}

func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func packageDirs(t *testing.T, root string) []string {
	var dirs []string
	for _, top := range universeDirs {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	sort.Strings(dirs)
	return dirs
}

func TestUniversePackagesHaveNoDeterminismLeaks(t *testing.T) {
	root := repoRoot(t)
	for _, f := range lint(t, root, packageDirs(t, root)) {
		t.Error(f)
	}
}

// TestTidyCatchesEveryBannedConstruct runs the linter on a package written to
// break every rule, so that a linter that silently stopped working fails.
func TestTidyCatchesEveryBannedConstruct(t *testing.T) {
	root, _ := filepath.Abs(".")
	got := strings.Join(lint(t, root, []string{filepath.Join(root, "testdata", "bad")}), "\n")
	for _, want := range []string{
		`imports "time"`, `imports "math/rand"`, `imports "os"`, `imports "sync"`,
		"go statement", "time.Now", "range over a map", "randv2.IntN",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("linter did not report %q; it reported:\n%s", want, got)
		}
	}
}

type reporter struct{ findings []string }

func (r *reporter) Errorf(format string, a ...any) {
	r.findings = append(r.findings, fmt.Sprintf(format, a...))
}

// lint returns one finding per banned construct in the packages in dirs.
func lint(t *testing.T, root string, dirs []string) []string {
	r := &reporter{}
	for _, dir := range dirs {
		fset := token.NewFileSet()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []*ast.File
		for _, e := range entries { // ReadDir sorts by name
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
			if err != nil {
				t.Fatalf("parse %s: %v", n, err)
			}
			files = append(files, f)
		}
		if len(files) > 0 {
			checkFiles(r, root, fset, files)
			checkMapRanges(r, fset, dir, files)
		}
	}
	return r.findings
}

func rel(root string, fset *token.FileSet, p token.Pos) string {
	pos := fset.Position(p)
	r, _ := filepath.Rel(root, pos.Filename)
	return r
}

func checkFiles(t *reporter, root string, fset *token.FileSet, files []*ast.File) {
	for _, f := range files {
		file := rel(root, fset, f.Pos())
		for _, im := range f.Imports {
			path := strings.Trim(im.Path.Value, `"`)
			if why, bad := bannedImports[path]; bad {
				if _, ok := allowed[file+" "+path]; !ok {
					t.Errorf("%s: imports %q: %s", fset.Position(im.Pos()), path, why)
				}
			}
			if path == "sync/atomic" {
				if _, ok := allowed[file+" "+path]; !ok {
					t.Errorf("%s: imports sync/atomic: a universe runs on one goroutine", fset.Position(im.Pos()))
				}
			}
		}
		// math/rand/v2 is allowed only for an explicitly seeded generator.
		randName := ""
		for _, im := range f.Imports {
			if strings.Trim(im.Path.Value, `"`) == "math/rand/v2" {
				randName = "rand"
				if im.Name != nil {
					randName = im.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: go statement: all of a universe runs on one goroutine", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && n.Sel.Name == "Now" {
					t.Errorf("%s: time.Now: virtual time comes from retired instructions", fset.Position(n.Pos()))
				}
				if id, ok := n.X.(*ast.Ident); ok && randName != "" && id.Name == randName &&
					n.Sel.Name != "ChaCha8" && n.Sel.Name != "NewChaCha8" {
					t.Errorf("%s: %s.%s: only an explicitly seeded ChaCha8 may be used", fset.Position(n.Pos()), randName, n.Sel.Name)
				}
			}
			return true
		})
	}
}

// checkMapRanges type-checks the package and reports every range over a map:
// Go randomizes map iteration order, so it must never reach state or output.
func checkMapRanges(t *reporter, fset *token.FileSet, dir string, files []*ast.File) {
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "source", nil),
		Error:    func(error) {},
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	_, _ = conf.Check(dir, fset, files, info)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			rs, ok := n.(*ast.RangeStmt)
			if !ok {
				return true
			}
			tv, ok := info.Types[rs.X]
			if !ok {
				return true
			}
			if _, isMap := tv.Type.Underlying().(*types.Map); isMap {
				t.Errorf("%s: range over a map: iteration order is random; iterate over sorted keys", fset.Position(rs.Pos()))
			}
			return true
		})
	}
}
