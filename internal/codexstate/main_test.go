package codexstate

import (
	"testing"

	"go.uber.org/goleak"
)

// Every database handle opened here is closed again: database/sql's opener goroutine ends
// with it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
