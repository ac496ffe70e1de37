package gdbstub

// The packets that move the target, forward (c, C, s, S, vCont) and in
// reverse (bs, bc), and the stop replies that answer them (Remote
// Protocol, "Stop Reply Packets").

import (
	"fmt"
	"strings"
)

// vContActions is the vCont? reply: the actions the server takes.
const vContActions = "vCont;c;C;s;S"

// Signals of the stop replies when the Stop names none.
const (
	sigTrap = 5
	sigInt  = 2
)

// resumePacket answers c, C, s, S, bs and bc. An address to resume at is
// refused: gdb sets the pc with P when it wants another one.
func (s *session) resumePacket(pkt string) (bool, error) {
	r := Resume{Thread: s.resumeThread(), Only: s.cTid > 0}
	switch pkt[0] {
	case 'c', 's':
		if len(pkt) != 1 {
			return false, s.reply(replyError)
		}
		r.Step = pkt[0] == 's'
	case 'C', 'S':
		// The signal is ignored: there is no process to deliver it to.
		if _, ok := parseSignal(pkt[1:]); !ok {
			return false, s.reply(replyError)
		}
		r.Step = pkt[0] == 'S'
	case 'b':
		switch pkt {
		case "bs":
			r.Step, r.Reverse = true, true
		case "bc":
			r.Reverse = true
		default:
			return false, s.reply(replyUnsupported)
		}
	}
	return s.resume(r)
}

// parseSignal reads a signal number of two hex digits.
func parseSignal(s string) (int, bool) {
	if len(s) != 2 {
		return 0, false
	}
	v, ok := parseHex(s)
	return int(v), ok
}

// resumeThread is the thread a resume without a thread of its own moves:
// Hc's, or for "any" and "all" (gdb 13 sends Hc0 before bs and bc) gdb's
// selected thread, the one of Hg. gdb sends Hg for it before it resumes,
// even after "info threads" visited the others; and a stop selects its
// own thread (see stopReply).
func (s *session) resumeThread() int {
	if s.cTid > 0 {
		return s.cTid
	}
	return s.regThread()
}

// vPacket answers the v packets.
func (s *session) vPacket(pkt string) (bool, error) {
	switch {
	case pkt == "vCont?":
		return false, s.reply(vContActions)
	case strings.HasPrefix(pkt, "vCont;"):
		r, ok := s.parseVCont(pkt[len("vCont;"):])
		if !ok {
			return false, s.reply(replyError)
		}
		return s.resume(r)
	case pkt == "vKill" || strings.HasPrefix(pkt, "vKill;"):
		return true, s.reply(replyOK)
	}
	// vMustReplyEmpty, and every v packet the server does not know.
	return false, s.reply(replyUnsupported)
}

// parseVCont reads vCont's actions, ACTION[:THREAD] separated by ‘;’. In
// all-stop mode they make one resume: a step of the leftmost stepping
// action's thread, or else a continue (of the leftmost continue action's
// thread if it names one). "s:2;c" steps thread 2 and lets the others run;
// when every action names one and the same thread, the others stay
// stopped (Only).
func (s *session) parseVCont(args string) (Resume, bool) {
	var step, cont int // the threads of the first s and c actions, 0 if none
	stepping, only, first := false, true, 0
	for _, a := range strings.Split(args, ";") {
		action, thread, hasThread := strings.Cut(a, ":")
		tid := threadAny
		if hasThread {
			var ok bool
			if tid, ok = parseThread(thread); !ok || (tid > 0 && !s.alive(tid)) {
				return Resume{}, false
			}
		}
		only = only && tid > 0 && (first == 0 || tid == first)
		first = tid
		if action == "" {
			return Resume{}, false
		}
		switch action[0] {
		case 'c', 's':
			if len(action) != 1 {
				return Resume{}, false
			}
		case 'C', 'S':
			if _, ok := parseSignal(action[1:]); !ok {
				return Resume{}, false
			}
		default:
			return Resume{}, false
		}
		switch isStep := action[0] == 's' || action[0] == 'S'; {
		case isStep && !stepping:
			stepping, step = true, tid
		case !isStep && cont == 0:
			cont = tid
		}
	}
	r := Resume{Step: stepping, Thread: s.resumeThread(), Only: only}
	switch {
	case stepping && step > 0:
		r.Thread = step
	case !stepping && cont > 0:
		r.Thread = cont
	}
	return r, true
}

// resume runs the target and answers with its stop: the stop's message on
// gdb's console, then the stop reply. A Ctrl-C that came before the
// target could start stops it before it runs.
func (s *session) resume(r Resume) (bool, error) {
	var st Stop
	var err error
	if s.intr.begin(s.seq) {
		st = Stop{Kind: StopInterrupt, Thread: r.Thread}
	} else {
		st, err = s.t.Resume(r)
	}
	s.intr.end()
	if err != nil {
		if rerr := s.reply(replyError); rerr != nil {
			return true, rerr
		}
		return true, fmt.Errorf("gdbstub: resume %+v: %w", r, err)
	}
	if st.Message != "" {
		if err := s.console(st.Message); err != nil {
			return true, err
		}
	}
	return false, s.reply(s.stopReply(st, r.Thread))
}

// stopReply is the stop reply for st (‘T’ with the stop's thread and
// reason, or ‘W’), and makes st's thread the current one. A stop without a
// thread is that of fallback.
//
// The stop also selects its thread for g, p, m and the rest, as if gdb had
// sent Hg: gdb 13 assumes so (after "thread 2", a stop of thread 1 and then
// g without an Hg1 between them).
func (s *session) stopReply(st Stop, fallback int) string {
	if st.Kind == StopExited {
		return fmt.Sprintf("W%02x", uint8(st.ExitCode))
	}
	tid := st.Thread
	if tid < 1 {
		tid = fallback
	}
	s.stopTid, s.gTid = tid, tid
	sig := st.Signal
	if sig <= 0 || sig > 0xff {
		sig = sigTrap
		if st.Kind == StopInterrupt {
			sig = sigInt
		}
	}
	reason := ""
	switch st.Kind {
	case StopBreak:
		reason = "swbreak:;"
	case StopHWBreak:
		reason = "hwbreak:;"
	case StopWatch:
		reason = fmt.Sprintf("watch:%x;", st.Addr)
	case StopRWatch:
		reason = fmt.Sprintf("rwatch:%x;", st.Addr)
	case StopAWatch:
		reason = fmt.Sprintf("awatch:%x;", st.Addr)
	case StopHistoryBegin:
		reason = "replaylog:begin;"
	case StopHistoryEnd:
		reason = "replaylog:end;"
	}
	return fmt.Sprintf("T%02xthread:%x;%s", sig, tid, reason)
}
