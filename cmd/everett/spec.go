package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"everett/explorer"
)

func newSpecCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "spec [SECTION | FIELD]",
		Short: "List every field of a universe spec: its type, default and meaning",
		Long: `Spec prints the reference of the universe spec that explore and sweep read:
every field, grouped by section, with its type, its default and what it
means. With an argument, only that section (nodes, faults, ...) or field
(faults.drop, nodes[].harts).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			only := ""
			if len(args) == 1 {
				only = args[0]
			}
			return printSpecReference(cmd.OutOrStdout(), only)
		},
	}
}

// pointToSpecReference ends cmd's help (a command that reads a spec) with
// where the spec's fields are listed.
func pointToSpecReference(cmd *cobra.Command) {
	cmd.SetUsageTemplate(cmd.UsageTemplate() + "\nEvery field of SPEC.yaml, with its type, default and meaning: everett spec\n")
}

// specIntro opens the reference.
const specIntro = `A universe spec is a YAML file: everett explore SPEC.yaml, everett sweep
SPEC.yaml. Durations read like 100us or 2s, sizes like 256MiB,
probabilities are 0..1, and relative paths are relative to the spec's
folder. Every field is checked before anything runs; a field not listed
here is an error.
`

// printSpecReference prints the reference's sections (only: the section or
// field of that name, "" for all).
func printSpecReference(w io.Writer, only string) error {
	match := func(f explorer.SpecField) bool {
		if only == "" {
			return true
		}
		o := strings.TrimSuffix(only, "[]")
		return strings.TrimSuffix(f.Group(), "[]") == o || f.Path == only || f.Path == o
	}
	if only == "" {
		fmt.Fprint(w, specIntro)
	}
	printed := 0
	for _, sec := range explorer.SpecSections {
		var fields []explorer.SpecField
		for _, f := range explorer.SpecReference {
			if f.Group() == sec.Name && match(f) {
				fields = append(fields, f)
			}
		}
		if len(fields) == 0 {
			continue
		}
		if printed > 0 || only == "" {
			fmt.Fprintln(w)
		}
		indent := ""
		if sec.Meaning != "" {
			fmt.Fprintf(w, "%s\n", sec.Name)
			wrap(w, sec.Meaning, "    ")
			indent = "  "
		}
		for _, f := range fields {
			fmt.Fprintf(w, "%s%s  %s, default %s\n", indent, f.Path, f.Type, f.Default)
			wrap(w, f.Meaning, indent+"    ")
		}
		printed += len(fields)
	}
	if printed == 0 {
		return usageErr("spec: no section or field %q (try everett spec)", only)
	}
	return nil
}

// wrap writes text in lines of at most 78 columns, each after indent.
func wrap(w io.Writer, text, indent string) {
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > 78 {
			fmt.Fprintln(w, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}
