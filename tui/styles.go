package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Styles are the looks of the session. They only repeat what the text
// already says (markers, words), so a terminal without colour loses
// nothing: the cursor row also starts with '>', knobs with '*', and so on.
type Styles struct {
	Header, TabActive, Tab, ColHead, Section, Knob, Cursor lipgloss.Style
	Drift, Dim, Status, Error, Good, Title                 lipgloss.Style
	Help                                                   help.Styles
}

// DefaultStyles uses the 16 ANSI colours and attributes that a Linux
// console and a vt100 understand (bold, reverse).
func DefaultStyles() Styles {
	s := lipgloss.NewStyle
	h := help.Styles{Ellipsis: s(), ShortKey: s().Bold(true), ShortDesc: s(), ShortSeparator: s(),
		FullKey: s().Bold(true), FullDesc: s(), FullSeparator: s()}
	return Styles{
		Header:    s().Bold(true),
		TabActive: s().Reverse(true),
		Tab:       s(),
		ColHead:   s().Underline(true),
		Section:   s().Bold(true),
		Knob:      s().Bold(true).Foreground(lipgloss.Color("6")),
		Cursor:    s().Reverse(true),
		Drift:     s().Bold(true).Foreground(lipgloss.Color("1")),
		Dim:       s().Faint(true),
		Status:    s(),
		Error:     s().Bold(true).Foreground(lipgloss.Color("1")),
		Good:      s().Foreground(lipgloss.Color("2")),
		Title:     s().Bold(true),
		Help:      h,
	}
}

// MonoStyles uses attributes a vt100 has (bold, underline, reverse) and
// no colour.
func MonoStyles() Styles {
	st := DefaultStyles()
	s := lipgloss.NewStyle
	st.Knob = s().Bold(true)
	st.Drift = s().Bold(true)
	st.Error = s().Bold(true)
	st.Good = s()
	st.Dim = s()
	return st
}
