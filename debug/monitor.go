package debug

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"everett/debug/gdbstub"
	"everett/emu"
	"everett/isa"
)

// monitorHelp lists the monitor commands.
const monitorHelp = `everett monitor commands:
  icount          the position: icount=N (instructions of all harts)
  goto N          move to instruction count N, forward or backward
  snapshot FILE   save the debugged machine's state here to a new snapshot file
  trap            the last trap each hart took into M- and S-mode
  hash            the state hash of the whole run here
  points          the session's checkpoints
  console         the last lines of the console
  help            this text
`

// Monitor implements gdbstub.Target: gdb's "monitor" command.
func (s *Session) Monitor(cmd string) (string, error) {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return monitorHelp, nil
	}
	arg := func() (string, error) {
		if len(f) != 2 {
			return "", fmt.Errorf("monitor %s takes one argument", f[0])
		}
		return f[1], nil
	}
	switch f[0] {
	case "help":
		return monitorHelp, nil
	case "icount":
		return fmt.Sprintf("icount=%d\n", s.run.ICount()), nil
	case "goto":
		a, err := arg()
		if err != nil {
			return "", err
		}
		n, err := strconv.ParseUint(strings.ReplaceAll(a, "_", ""), 0, 64)
		if err != nil {
			return "", fmt.Errorf("monitor goto %q: want an instruction count", a)
		}
		end, err := s.goTo(n, true)
		if err != nil {
			return "", err
		}
		s.stop = gdbstub.Stop{Kind: gdbstub.StopStep, Thread: max(s.stop.Thread, 1)}
		out := fmt.Sprintf("icount=%d\n", s.run.ICount())
		if end != "" {
			out += "the run ends before that: " + end + "\n"
		}
		return out + "(gdb still shows the old registers: run 'flushregs' to see the new ones)\n", nil
	case "snapshot":
		a, err := arg()
		if err != nil {
			return "", err
		}
		return s.snapshot(a)
	case "trap":
		return s.traps()
	case "hash":
		return fmt.Sprintf("state-hash=%016x icount=%d\n", s.run.StateHash(), s.run.ICount()), nil
	case "points":
		grid := 0
		for _, p := range s.pts {
			if p.grid {
				grid++
			}
		}
		return fmt.Sprintf("%d points (%d on the grid of every %d instructions, %d fine), from icount=%d to icount=%d\n",
			len(s.pts), grid, s.every, len(s.pts)-grid, s.pts[0].icount, s.pts[len(s.pts)-1].icount), nil
	case "console":
		return s.run.ConsoleTail() + "\n", nil
	}
	return "", fmt.Errorf("unknown monitor command %q (monitor help lists them)", f[0])
}

// snapshot saves the debugged machine at the current position.
func (s *Session) snapshot(path string) (string, error) {
	if s.save == nil {
		return "", fmt.Errorf("monitor snapshot: not available for this target")
	}
	m := s.run.Machine()
	if m == nil {
		return "", ErrNoMachine
	}
	if _, err := os.Stat(path); err == nil {
		return "", fmt.Errorf("monitor snapshot: %s exists; not overwriting it", path)
	}
	if err := s.save(path, m); err != nil {
		return "", fmt.Errorf("monitor snapshot %s: %w", path, err)
	}
	return fmt.Sprintf("saved icount=%d to %s (continue it with: everett restore %s)\n", m.ICount(), path, path), nil
}

// traps describes each hart's last traps from its CSRs.
func (s *Session) traps() (string, error) {
	m := s.run.Machine()
	if m == nil {
		return "", ErrNoMachine
	}
	var b strings.Builder
	for _, h := range m.Harts() {
		fmt.Fprintf(&b, "hart %d (%s-mode, pc=%#x):\n", h.ID, emu.PrivName(h.Priv()), h.PC())
		for _, mode := range []struct {
			name             string
			cause, epc, tval uint16
		}{{"M", isa.CSRMcause, isa.CSRMepc, isa.CSRMtval}, {"S", isa.CSRScause, isa.CSRSepc, isa.CSRStval}} {
			c, _ := h.PeekCSR(mode.cause)
			epc, _ := h.PeekCSR(mode.epc)
			tval, _ := h.PeekCSR(mode.tval)
			if c == 0 && epc == 0 {
				fmt.Fprintf(&b, "  %s: none\n", mode.name)
				continue
			}
			what := emu.CauseName(c &^ (1 << 63))
			if c>>63 != 0 {
				what = fmt.Sprintf("interrupt %d", c&^(1<<63))
			}
			fmt.Fprintf(&b, "  %s: %s at pc=%#x, tval=%#x\n", mode.name, what, epc, tval)
		}
	}
	return b.String(), nil
}
