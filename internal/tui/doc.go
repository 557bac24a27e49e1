// Package tui is the interactive terminal face of gocodex: the conversation as it streams,
// a status line and a multi-line composer with a slash-command popup and @ file mentions,
// modals for approvals and questions, pickers for /model, /permissions and /resume.
//
// By default it runs inline: finished cells are written once into the terminal's own
// scrollback and only the live area is redrawn (inline.go); [tui] alternate_screen =
// "always" draws everything on the alternate screen instead, and TERM=dumb gets a plain line
// mode (plain.go). Ctrl+T opens a pager over the whole transcript.
//
// Like every face it only submits ops and reads events of one thread (the Engine); /new,
// /resume and /fork swap the engine through callbacks in Options. Events reach the bubbletea
// program through a pump goroutine per engine, owned by Run; the Model can be driven
// directly with messages, which is how its tests work.
package tui
