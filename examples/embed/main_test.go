package main

import (
	"context"
	"os"
)

// The custom tool runs and the model answers with its output.
func Example() {
	if err := run(context.Background(), os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// assistant: There are 4 words.
	// turn complete
}
