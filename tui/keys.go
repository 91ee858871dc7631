package tui

import "charm.land/bubbles/v2/key"

// KeyMap holds every key binding of the session. The help line shows the
// bindings that apply to what is on screen.
type KeyMap struct {
	// Moving around. Move only labels Up and Down in the help line.
	Up, Down, Move, PageUp, PageDown, Top, Bottom key.Binding
	NextTab, PrevTab                              key.Binding
	Registers, Probe, Sweep                       key.Binding

	// Live refresh. Rate only labels Slower and Faster in the help line.
	Pause, Slower, Faster, Rate key.Binding

	// Registers.
	Edit, Revert, RevertAll, Axis key.Binding

	// Editor and prompts.
	Apply, Cancel, Switch key.Binding

	// Probe.
	// Runs only labels More and Fewer in the help line.
	Run, Stop, More, Fewer, Runs, Mark key.Binding

	// Sweep.
	Plan, Load, Chart key.Binding

	Export, Help, Quit, ForceQuit key.Binding

	// Quit dialog.
	RestoreQuit, KeepQuit key.Binding
}

// DefaultKeyMap returns the bindings. Every action has a plain letter or a
// key a vt100 sends, so it works over a serial console.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:        b("k/up", "up", "up", "k"),
		Down:      b("j/dn", "down", "down", "j"),
		Move:      b("j/k", "move", "up", "down", "j", "k"),
		PageUp:    b("b/pgup", "page up", "pgup", "b", "ctrl+b"),
		PageDown:  b("f/pgdn", "page down", "pgdown", "f", "ctrl+f"),
		Top:       b("g", "top", "home", "g"),
		Bottom:    b("G", "bottom", "end", "G"),
		NextTab:   b("tab", "tab", "tab"),
		PrevTab:   b("S-tab", "prev tab", "shift+tab"),
		Registers: b("1", "registers", "1"),
		Probe:     b("2", "probe", "2"),
		Sweep:     b("3", "sweep", "3"),

		Pause:  b("p", "pause", "p"),
		Slower: b("<", "slower", "<", ","),
		Faster: b(">", "faster", ">", "."),
		Rate:   b("</>", "refresh rate", "<", ">"),

		Edit:      b("enter", "edit", "enter", "e"),
		Revert:    b("u", "revert", "u"),
		RevertAll: b("U", "revert all", "U"),
		Axis:      b("x", "axis", "x"),

		Apply:  b("enter", "apply", "enter"),
		Cancel: b("esc", "cancel", "esc", "ctrl+g"),
		Switch: b("tab", "switch", "tab"),

		Run:   b("r", "run", "r"),
		Stop:  b("s", "stop", "s"),
		More:  b("+", "more", "+", "="),
		Fewer: b("-", "fewer", "-"),
		Runs:  b("+/-", "runs", "+", "-"),
		Mark:  b("m", "mark A", "m"),

		Plan:  b("e", "plan", "e"),
		Load:  b("l", "load", "l"),
		Chart: b("v", "view", "v"),

		Export:    b("w", "export", "w"),
		Help:      b("?", "all keys", "?"),
		Quit:      b("q", "quit", "q"),
		ForceQuit: b("^c", "quit", "ctrl+c"),

		RestoreQuit: b("r/enter", "restore+quit", "r", "enter"),
		KeepQuit:    b("k", "keep+quit", "k"),
	}
}

// FullHelp lists every binding in columns (for the ? screen).
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextTab, k.PrevTab, k.Registers, k.Probe, k.Sweep, k.Pause, k.Slower, k.Faster},
		{k.Edit, k.Revert, k.RevertAll, k.Axis, k.Export, k.Cancel},
		{k.Run, k.Stop, k.More, k.Fewer, k.Mark},
		{k.Plan, k.Load, k.Chart, k.Help, k.Quit, k.ForceQuit},
	}
}
