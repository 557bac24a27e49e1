package hooks

import "time"

// runtimeGosched waits a little for another goroutine (a polling loop with no timing claim).
func runtimeGosched() { time.Sleep(time.Millisecond) }
