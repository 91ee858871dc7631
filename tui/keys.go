package tui

import "charm.land/bubbles/v2/key"

// keyMap holds the bindings every tab has; each tab has its own keys
// (regsKeys, probeKeys, sweepKeys) too.
type keyMap struct {
	// Move only labels Up and Down in the help line.
	Up, Down, Move          key.Binding
	NextTab, PrevTab        key.Binding
	Registers, Probe, Sweep key.Binding

	// Live refresh. Rate only labels Slower and Faster in the help line.
	Pause, Slower, Faster, Rate key.Binding

	// The Registers tab's editor, the Sweep tab's prompts, the dialogs.
	Apply, Cancel, Switch key.Binding

	Export, Help, Quit, ForceQuit key.Binding

	// Quit dialog.
	RestoreQuit, KeepQuit key.Binding
}

// bind makes a binding. Every action has a key a vt100 sends.
func bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

func defaultKeyMap() keyMap {
	b := bind
	return keyMap{
		Up:        b("k/up", "up", "up", "k"),
		Down:      b("j/dn", "down", "down", "j"),
		Move:      b("j/k", "move", "up", "down", "j", "k"),
		NextTab:   b("tab", "tab", "tab"),
		PrevTab:   b("S-tab", "prev tab", "shift+tab"),
		Registers: b("1", "registers", "1"),
		Probe:     b("2", "probe", "2"),
		Sweep:     b("3", "sweep", "3"),

		Pause:  b("p", "pause", "p"),
		Slower: b("<", "slower", "<", ","),
		Faster: b(">", "faster", ">", "."),
		Rate:   b("</>", "refresh rate", "<", ">"),

		Apply:  b("enter", "apply", "enter"),
		Cancel: b("esc", "cancel", "esc", "ctrl+g"),
		Switch: b("tab", "switch", "tab"),

		Export:    b("w", "export", "w"),
		Help:      b("?", "keys", "?"),
		Quit:      b("q", "quit", "q"),
		ForceQuit: b("^c", "quit", "ctrl+c"),

		RestoreQuit: b("r/enter", "restore+quit", "r", "enter"),
		KeepQuit:    b("k", "keep+quit", "k"),
	}
}

// FullHelp lists the global bindings in columns (for the ? screen).
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down},
		{k.NextTab, k.PrevTab},
		{k.Registers, k.Probe, k.Sweep},
		{k.Pause, k.Slower, k.Faster},
		{k.Export, k.Cancel, k.Help},
		{k.Quit, k.ForceQuit},
	}
}

// regsKeys are the Registers tab's own bindings.
type regsKeys struct {
	PageUp, PageDown, Top, Bottom key.Binding
	Edit, Revert, RevertAll, Axis key.Binding
}

func defaultRegsKeys() regsKeys {
	return regsKeys{
		PageUp:    bind("b/pgup", "page up", "pgup", "b", "ctrl+b"),
		PageDown:  bind("f/pgdn", "page down", "pgdown", "f", "ctrl+f"),
		Top:       bind("g", "top", "home", "g"),
		Bottom:    bind("G", "bottom", "end", "G"),
		Edit:      bind("enter", "edit", "enter", "e"),
		Revert:    bind("u", "revert", "u"),
		RevertAll: bind("U", "revert all", "U"),
		Axis:      bind("x", "axis", "x"),
	}
}

// probeKeys are the Probe tab's own bindings (Runs labels More and Fewer).
type probeKeys struct {
	Run, Stop, More, Fewer, Runs, Mark key.Binding
}

func defaultProbeKeys() probeKeys {
	return probeKeys{
		Run:   bind("r", "run", "r"),
		Stop:  bind("s", "stop", "s"),
		More:  bind("+", "more", "+", "="),
		Fewer: bind("-", "fewer", "-"),
		Runs:  bind("+/-", "runs", "+", "-"),
		Mark:  bind("m", "mark A", "m"),
	}
}

// sweepKeys are the Sweep tab's own bindings.
type sweepKeys struct {
	Run, Stop, Plan, Load, Chart key.Binding
}

func defaultSweepKeys() sweepKeys {
	return sweepKeys{
		Run:   bind("r", "run", "r"),
		Stop:  bind("s", "stop", "s"),
		Plan:  bind("e", "plan", "e"),
		Load:  bind("l", "load", "l"),
		Chart: bind("v", "view", "v"),
	}
}
