// Command hello is the start-up baseline: a static Go program that prints one line, against
// which `gocodex --version` is measured.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
