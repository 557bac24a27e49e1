module github.com/gocodex/gocodex/examples

go 1.26.0

require github.com/gocodex/gocodex v0.0.0

require (
	github.com/charmbracelet/x/conpty v0.2.0 // indirect
	github.com/creack/pty v1.1.24 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.19.2 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)

replace github.com/gocodex/gocodex => ../
