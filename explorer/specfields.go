package explorer

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Unknown fields: a spec key that is no field of its section is an error
// that names the key, its line and its section, with the nearest field
// the reference lists there.

// UnknownFieldError is a key of a spec that is not a field where it
// stands (a misspelling, or a field of another section). It wraps ErrSpec.
type UnknownFieldError struct {
	File    string // the spec file ("" when parsed from bytes)
	Line    int
	Section string // where the key stands: "nodes[0]", "faults"; "" at the top level
	Field   string
	Suggest string   // the nearest field of the section, or ""
	Known   []string // the section's fields, when there is no suggestion
}

// Error reads like `spec.yaml:7: nodes[0]: unknown field "hart" (did you
// mean "harts"?)`.
func (e *UnknownFieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	} else {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Section != "" {
		b.WriteString(e.Section + ": ")
	}
	fmt.Fprintf(&b, "unknown field %q", e.Field)
	switch {
	case e.Suggest != "":
		fmt.Fprintf(&b, " (did you mean %q?)", e.Suggest)
	case len(e.Known) > 0:
		fmt.Fprintf(&b, " (want %s; see everett spec)", strings.Join(e.Known, ", "))
	}
	return b.String()
}

// Unwrap returns ErrSpec.
func (e *UnknownFieldError) Unwrap() error { return ErrSpec }

// maxUnknownFields bounds the unknown fields one error lists.
const maxUnknownFields = 10

// unknownFields returns an error listing the keys of the YAML document b
// that are no field of Spec where they stand (nil when there are none, or
// b is not YAML at all), each an *UnknownFieldError.
func unknownFields(b []byte) error {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil {
		return nil
	}
	w := &unknownWalk{}
	w.walk(&doc, reflect.TypeOf(Spec{}), "", 0)
	return errors.Join(w.found...)
}

// inFile names file in the unknown-field errors of err.
func inFile(err error, file string) error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	for _, e := range list {
		if u, ok := e.(*UnknownFieldError); ok {
			u.File = file
		}
	}
	return err
}

// Bounds of the walk: a spec is a few levels deep and a few hundred nodes
// big; a hostile document of nested aliases could be very deep, or visit
// the same nodes exponentially often.
const (
	maxSpecDepth  = 16
	maxSpecVisits = 100_000
)

// unknownWalk finds the unknown fields of a document.
type unknownWalk struct {
	found  []error
	visits int
}

// walk visits node n, which decodes into a value of type t at path, and
// adds an UnknownFieldError for every key that is no field.
func (w *unknownWalk) walk(n *yaml.Node, t reflect.Type, path string, depth int) {
	w.visits++
	if depth > maxSpecDepth || w.visits > maxSpecVisits || len(w.found) >= maxUnknownFields {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			w.walk(c, t, path, depth+1)
		}
		return
	case yaml.AliasNode:
		if n.Alias != nil {
			w.walk(n.Alias, t, path, depth+1)
		}
		return
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				continue
			}
			ft, ok := fields[k.Value]
			if !ok {
				w.found = append(w.found, unknownField(k, path))
				if len(w.found) >= maxUnknownFields {
					return
				}
				continue
			}
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			w.walk(v, ft, p, depth+1)
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, c := range n.Content {
			w.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1)
		}
	}
}

var indexRE = regexp.MustCompile(`\[[0-9]+\]`)

// maxFieldName bounds the key an error quotes and looks a suggestion for.
const maxFieldName = 64

// unknownField describes key k, found at path, that is no field there.
func unknownField(k *yaml.Node, path string) *UnknownFieldError {
	e := &UnknownFieldError{Line: k.Line, Section: path, Field: k.Value}
	known := specFieldsIn(indexRE.ReplaceAllString(path, "[]"))
	if len(e.Field) > maxFieldName {
		e.Field = e.Field[:maxFieldName] + "..."
	} else {
		e.Suggest = nearestField(e.Field, known)
	}
	if e.Suggest == "" {
		e.Known = known
	}
	return e
}

// nearestField returns the field of known that name most likely meant: the
// nearest within an edit distance of a third of its length (at least 1),
// or one that name begins or ends; "" when none is near.
func nearestField(name string, known []string) string {
	low := strings.ToLower(name)
	best, bestD := "", max(1, len(name)/3)+1
	for _, f := range known {
		d := editDistance(low, f)
		if len(low) >= 3 && (strings.HasPrefix(f, low) || strings.HasPrefix(low, f) || strings.HasSuffix(f, low)) {
			d = min(d, max(1, len(name)/3))
		}
		if d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// editDistance is the number of insertions, deletions, substitutions and
// swaps of two neighbours that turn a into b (the optimal string alignment
// distance, over bytes): "dorp" is 1 from "drop".
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			c := d[i-1][j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				c = min(c, d[i-2][j-2]+1)
			}
			d[i][j] = c
		}
	}
	return d[len(a)][len(b)]
}

// yamlFields returns the YAML keys of struct type t and the types they
// decode into, as yaml.v3 reads its tags: `yaml:"name,opts"`, "-" skips
// the field, no name means the field's name in lower case, ",inline" puts
// an embedded struct's fields at this level.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlFields(ft) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}
