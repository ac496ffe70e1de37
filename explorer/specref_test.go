package explorer

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// specPaths lists the YAML paths of every field of struct type t, as the
// reference spells them: "budgets.time", "nodes[].harts". A struct (or a
// list of structs) is a section whose fields are listed — and a field of
// its own too when it has a YAML form of its own (a yaml.Unmarshaler, as
// nodes[].run's short form); anything else (scalars, lists of scalars,
// maps, pointers to scalars) is one field.
func specPaths(t reflect.Type, prefix string) []string {
	var out []string
	for k, ft := range yamlFields(t) {
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			out = append(out, specPaths(ft, prefix+k+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, specPaths(ft.Elem(), prefix+k+"[].")...)
			if reflect.PointerTo(ft).Implements(reflect.TypeFor[yaml.Unmarshaler]()) {
				out = append(out, prefix+k)
			}
		default:
			out = append(out, prefix+k)
		}
	}
	slices.Sort(out)
	return out
}

// undocumented compares the fields of t with a reference: the fields it
// lacks, and the entries that name no field.
func undocumented(t reflect.Type, ref []SpecField) (missing, extra []string) {
	fields := specPaths(t, "")
	var paths []string
	for _, f := range ref {
		paths = append(paths, f.Path)
	}
	for _, p := range fields {
		if !slices.Contains(paths, p) {
			missing = append(missing, p)
		}
	}
	for _, p := range paths {
		if !slices.Contains(fields, p) {
			extra = append(extra, p)
		}
	}
	return missing, extra
}

func TestEverySpecFieldHasAReferenceEntryAndEveryEntryIsAField(t *testing.T) {
	missing, extra := undocumented(reflect.TypeOf(Spec{}), SpecReference)
	for _, p := range missing {
		t.Errorf("spec field %s has no entry in SpecReference (explorer/specref.go)", p)
	}
	for _, p := range extra {
		t.Errorf("SpecReference lists %s, which is no field of Spec", p)
	}
	if len(specPaths(reflect.TypeOf(Spec{}), "")) < 40 {
		t.Fatalf("the walk found only %v", specPaths(reflect.TypeOf(Spec{}), ""))
	}
}

func TestTheReferenceCheckCatchesAnUndocumentedFieldAndAStaleEntry(t *testing.T) {
	type inner struct {
		Kept   int `yaml:"kept"`
		Hidden int `yaml:"-"`
	}
	type fake struct {
		Name  string  `yaml:"name"`
		Items []inner `yaml:"items"`
		Sub   *inner  `yaml:"sub"`
		New   float64 `yaml:"new_field"`
	}
	ref := []SpecField{{Path: "name"}, {Path: "items[].kept"}, {Path: "sub.kept"}, {Path: "sub.gone"}}
	missing, extra := undocumented(reflect.TypeOf(fake{}), ref)
	if !slices.Equal(missing, []string{"new_field"}) || !slices.Equal(extra, []string{"sub.gone"}) {
		t.Fatalf("missing %v, extra %v; want [new_field] and [sub.gone]", missing, extra)
	}
}

func TestTheReferenceIsGroupedIntoItsSectionsAndSaysEverything(t *testing.T) {
	var names []string
	for _, s := range SpecSections {
		names = append(names, s.Name)
	}
	seen := map[string]bool{}
	last := -1
	for _, f := range SpecReference {
		if seen[f.Path] {
			t.Errorf("%s is listed twice", f.Path)
		}
		seen[f.Path] = true
		if f.Type == "" || f.Default == "" || f.Meaning == "" {
			t.Errorf("%s: type %q, default %q, meaning %q: say all three", f.Path, f.Type, f.Default, f.Meaning)
		}
		g := slices.Index(names, f.Group())
		if g < 0 {
			t.Errorf("%s is in no section of SpecSections %v", f.Path, names)
		} else if g < last {
			t.Errorf("%s is listed after a later section's fields", f.Path)
		}
		last = max(last, g)
	}
	for _, s := range names {
		if !slices.ContainsFunc(SpecReference, func(f SpecField) bool { return f.Group() == s }) {
			t.Errorf("section %s has no field", s)
		}
	}
}

func TestAMisspeltFieldIsAnErrorNamingItsLineSectionAndTheFieldMeant(t *testing.T) {
	dir := t.TempDir()
	elf := buildProg(t, "racy")
	for _, tc := range []struct {
		name, yaml string
		want       []string // the error's lines, after "spec.yaml:"
	}{
		{"a node's field", "nodes:\n  - elf: " + elf + "\n  - elf: " + elf + "\n    hart: 2\n",
			[]string{`4: nodes[1]: unknown field "hart" (did you mean "harts"?)`}},
		{"two letters swapped", "nodes: [{elf: " + elf + "}]\nfaults: {dorp: 0.1}\n",
			[]string{`2: faults: unknown field "dorp" (did you mean "drop"?)`}},
		{"a top-level field in another spelling", "nodes: [{elf: " + elf + "}]\nmemoryModel: sc\n",
			[]string{`2: unknown field "memoryModel" (did you mean "memory_model"?)`}},
		{"a prefix of a field", "nodes: [{elf: " + elf + "}]\nnetwork:\n  latency: 1ms\n",
			[]string{`3: network: unknown field "latency" (did you mean "latency_min"?)`}},
		{"nothing near: the section's fields", "nodes: [{elf: " + elf + "}]\nbudgets: {time: 1s, money: 3}\n",
			[]string{`2: budgets: unknown field "money" (want time, instructions, universes, wall, memory; see everett spec)`}},
		{"a setup mapping", "nodes: [{elf: " + elf + "}]\nsetup: {at: sdk, when: now}\n",
			[]string{`2: setup: unknown field "when" (want at, perturb, seed; see everett spec)`}},
		{"every one of them", "nodes: [{elf: " + elf + ", hart: 2}]\nbogus: 1\nsearch: {corpsu: 3}\n",
			[]string{`1: nodes[0]: unknown field "hart" (did you mean "harts"?)`,
				`2: unknown field "bogus" (want name, nodes, network, memory_model, faults, oracles, budgets, search, setup; see everett spec)`,
				`3: search: unknown field "corpsu" (did you mean "corpus"?)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "spec.yaml")
			if err := os.WriteFile(p, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadSpec(p)
			var want []string
			for _, w := range tc.want {
				want = append(want, p+":"+w)
			}
			var uf *UnknownFieldError
			if !errors.Is(err, ErrSpec) || !errors.As(err, &uf) || err.Error() != strings.Join(want, "\n") {
				t.Fatalf("got\n%v\nwant an ErrSpec reading\n%s", err, strings.Join(want, "\n"))
			}
			// Parsed from bytes, the same errors name the line alone.
			_, err = ParseSpec([]byte(tc.yaml), dir)
			if err == nil || !strings.HasPrefix(err.Error(), "line "+strings.SplitN(tc.want[0], ":", 2)[0]+": ") {
				t.Fatalf("ParseSpec: %v", err)
			}
		})
	}
}

func TestASpecThatRepeatsAMisspeltNodeByAliasGetsABoundedError(t *testing.T) {
	// One node mapping with a misspelt key, named 5000 times.
	y := "n: &n {harts: 1, hart: 2}\nnodes: [" + strings.Repeat("*n, ", 4999) + "*n]\n"
	_, err := ParseSpec([]byte(y), t.TempDir())
	if !errors.Is(err, ErrSpec) {
		t.Fatalf("got %v, want an ErrSpec", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxUnknownFields || !strings.Contains(lines[1], `nodes[0]: unknown field "hart" (did you mean "harts"?)`) {
		t.Fatalf("%d lines, want %d; the first ones:\n%s", len(lines), maxUnknownFields, strings.Join(lines[:min(3, len(lines))], "\n"))
	}
}
