package board_test

import (
	"strings"

	"everett/devices/fdt"
)

// fdtParse flattens a device tree into path -> string value (properties
// that hold strings; other properties map to "").
func fdtParse(b []byte) (map[string]string, error) {
	t, err := fdt.Parse(b)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(n *fdt.Node, path string)
	walk = func(n *fdt.Node, path string) {
		for _, p := range n.Props() {
			v := ""
			if s, ok := n.Strings(p.Name); ok && len(s) > 0 && strings.Trim(string(p.Value), "\x00") != "" && isText(p.Value) {
				v = s[0]
			}
			out[path+"/"+p.Name] = v
		}
		for _, c := range n.Children() {
			walk(c, path+"/"+c.Name())
		}
	}
	walk(t.Root(), "")
	return out, nil
}

func isText(b []byte) bool {
	for _, c := range b {
		if c != 0 && (c < 0x20 || c > 0x7e) {
			return false
		}
	}
	return len(b) > 0 && b[len(b)-1] == 0
}
