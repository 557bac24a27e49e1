// Package tui is the interactive terminal face of gocodex: a header, the conversation as it
// streams, a status line and a multi-line composer, with a modal for approval requests.
//
// Like every face it only submits ops and reads events of one thread (the Engine). Events
// reach the bubbletea program through a pump goroutine owned by Run; the Model can be driven
// directly with messages, which is how its tests work.
package tui
